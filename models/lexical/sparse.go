package lexical

import (
	"context"
	"math/bits"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

var _ models.SparseEmbedder = (*Embedder)(nil)

// EmbedSparse implements models.SparseEmbedder: Embed's vectors (and errors) as
// their non-zero buckets.
func (l *Embedder) EmbedSparse(ctx context.Context, texts []string) ([]models.SparseVector, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]models.SparseVector, len(texts))
	for i, t := range texts {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, engine.Errorf(engine.EUNAVAILABLE, "embedding cancelled: %v", ctx.Err())
		}
		v, err := l.embedSparse(t, i)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// feat is one feature occurrence: its hash and weight.
type feat struct {
	key uint64
	w   float64
}

// lexScratch is one embedding's working memory. acc and touched are all
// zero between uses (gather clears what a use wrote).
type lexScratch struct {
	fams    [nFamilies][]feat
	weights []float64
	acc     []float64 // dims buckets
	touched []uint64  // bit b is set when acc[b] was written
	idx     []int32   // gather's non-zero buckets, increasing
	val     []float64 // and their values
}

// maxScratchFeatures bounds the feature buffers a pooled scratch keeps, so
// one long text does not pin its buffers for good.
const maxScratchFeatures = 1 << 14

func (l *Embedder) getScratch() *lexScratch {
	if s, _ := l.scratch.Get().(*lexScratch); s != nil {
		return s
	}
	return &lexScratch{acc: make([]float64, l.dims), touched: make([]uint64, (l.dims+63)/64)}
}

func (l *Embedder) putScratch(s *lexScratch) {
	for fam, fs := range s.fams {
		if cap(fs) > maxScratchFeatures {
			s.fams[fam] = nil
		}
	}
	if cap(s.weights) > maxScratchFeatures || cap(s.idx) > maxScratchFeatures {
		s.weights, s.idx, s.val = nil, nil, nil
	}
	l.scratch.Put(s)
}

// gather moves the non-zero buckets of acc, in increasing order, to idx and
// val, clears acc and touched, and returns the sum of the squared values
// added in bucket order: the same float64 a pass over every bucket gives.
func (s *lexScratch) gather() float64 {
	s.idx, s.val = s.idx[:0], s.val[:0]
	var ss float64
	for w, word := range s.touched {
		for word != 0 {
			b := w<<6 | bits.TrailingZeros64(word)
			word &= word - 1
			if x := s.acc[b]; x != 0 {
				s.idx = append(s.idx, int32(b))
				s.val = append(s.val, x)
				ss += x * x
			}
			s.acc[b] = 0
		}
		s.touched[w] = 0
	}
	return ss
}

// normalised returns the gathered buckets times inv as a new sparse vector,
// each component computed as models.Normalize64 computes it; a component that
// rounds to zero in float32 is left out, as it is zero in the dense vector.
func (s *lexScratch) normalised(dims int, inv float64) models.SparseVector {
	v := models.SparseVector{Dims: dims, Indices: make([]int32, 0, len(s.idx)), Values: make([]float32, 0, len(s.idx))}
	for i, x := range s.val {
		if f := float32(x * inv); f != 0 {
			v.Indices = append(v.Indices, s.idx[i])
			v.Values = append(v.Values, f)
		}
	}
	return v
}
