package models

import (
	"math"

	"github.com/lexsona/lexsona/engine"
)

// MeanPool computes one sentence embedding from a model's last_hidden_state
// exactly as sentence-transformers does for all-MiniLM-L6-v2: the mean of the
// token vectors whose attention mask is 1, then L2 normalisation. hidden is
// row-major [seqLen][dim] for one text (padding rows included), mask its
// attention mask (len seqLen). Sums are accumulated in float64.
//
// index is the text's position in the caller's batch, used in errors: a text
// with no attended token is an EINVALID error; a NaN, Inf or zero-norm result
// is an EINTERNAL error (the model produced garbage). Neither yields a vector.
func MeanPool(hidden []float32, mask []int64, dim, index int) ([]float32, error) {
	acc := make([]float64, dim)
	n := 0
	for t, m := range mask {
		if m == 0 {
			continue
		}
		n++
		row := hidden[t*dim : (t+1)*dim]
		for k, v := range row {
			acc[k] += float64(v)
		}
	}
	if n == 0 {
		return nil, engine.Errorf(engine.EINVALID, "text %d has no tokens to embed", index)
	}
	inv := 1 / float64(n)
	for k := range acc {
		acc[k] *= inv
	}
	return Normalize64(acc, index)
}

// PoolBatch mean-pools and normalises every row of a padded batch's
// last_hidden_state (row-major [b.Size][b.SeqLen][dim]) with MeanPool; idx
// holds the rows' positions in the caller's input, which errors name.
func PoolBatch(hidden []float32, b Batch, dim int, idx []int) ([][]float32, error) {
	out := make([][]float32, b.Size)
	for r := range b.Size {
		v, err := MeanPool(hidden[r*b.SeqLen*dim:(r+1)*b.SeqLen*dim], b.AttentionMask[r*b.SeqLen:(r+1)*b.SeqLen], dim, idx[r])
		if err != nil {
			return nil, err
		}
		out[r] = v
	}
	return out, nil
}

// Normalize64 L2-normalises v into a new float32 vector. A NaN or Inf
// component or a zero norm is an EINTERNAL error naming text index.
func Normalize64(v []float64, index int) ([]float32, error) {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	if math.IsNaN(ss) || math.IsInf(ss, 0) {
		return nil, engine.Errorf(engine.EINTERNAL, "text %d: the embedding has NaN or Inf components", index)
	}
	if ss == 0 {
		return nil, engine.Errorf(engine.EINTERNAL, "text %d: the embedding is all zeros and cannot be normalised", index)
	}
	inv := 1 / math.Sqrt(ss)
	out := make([]float32, len(v))
	for k, x := range v {
		out[k] = float32(x * inv)
	}
	return out, nil
}
