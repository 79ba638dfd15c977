package models

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/lexsona/lexsona/engine"
)

// DefaultMaxBatch is the largest number of texts run through the model at once.
const DefaultMaxBatch = 32

// SubBatchFunc runs the model on one padded sub-batch. idx holds the input
// positions of the batch's rows (for error messages); it returns one vector
// per row, in row order.
type SubBatchFunc func(ctx context.Context, idx []int, b Batch) ([][]float32, error)

// RunSorted orders encs by length (stable), so that short texts are not
// padded to long ones, splits them into sub-batches of at most maxBatch
// (<= 0 means DefaultMaxBatch) that minimise padding and session runs
// (planSubBatches), runs fn on each and returns the vectors in input order.
// It stops between sub-batches when ctx is done: an EUNAVAILABLE error. fn's
// errors are returned as they are; fn returning the wrong number of vectors
// is an internal error.
func RunSorted(ctx context.Context, encs []Encoding, maxBatch int, fn SubBatchFunc) ([][]float32, error) {
	if maxBatch <= 0 {
		maxBatch = DefaultMaxBatch
	}
	order := make([]int, len(encs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return encs[a].Len() - encs[b].Len() })
	out := make([][]float32, len(encs))
	lens := make([]int, len(order))
	for k, i := range order {
		lens[k] = encs[i].Len()
	}
	rows := make([]Encoding, 0, min(maxBatch, len(encs)))
	start := 0
	for _, end := range planSubBatches(lens, maxBatch) {
		if err := ctx.Err(); err != nil {
			return nil, engine.Errorf(engine.EUNAVAILABLE, "embedding cancelled: %v", err)
		}
		idx := order[start:end]
		start = end
		rows = rows[:0]
		for _, i := range idx {
			rows = append(rows, encs[i])
		}
		vecs, err := fn(ctx, idx, PadBatch(rows))
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(idx) {
			return nil, fmt.Errorf("model returned %d vectors for %d texts", len(vecs), len(idx))
		}
		for r, i := range idx {
			out[i] = vecs[r]
		}
	}
	return out, nil
}

// Cost model for planSubBatches, in token-equivalents: a row padded to L
// tokens costs L·(1 + L/attnTokens) (the dense layers are linear in L,
// attention quadratic; for MiniLM, 22 MFLOP per token against 9.2 kFLOP per
// token pair), and every session run costs runOverhead.
const (
	attnTokens  = 2400
	runOverhead = 16
)

// planSubBatches splits ascending token lengths into runs of at most
// maxBatch rows, minimising the cost model above (padding a batch of short
// texts to one long text is the waste it avoids), and returns each run's end
// index. Dynamic programming, O(len(lens)·maxBatch).
func planSubBatches(lens []int, maxBatch int) []int {
	n := len(lens)
	cost := make([]float64, n+1)
	from := make([]int, n+1)
	for i := 1; i <= n; i++ {
		cost[i] = math.Inf(1)
		l := float64(lens[i-1])
		row := l * (1 + l/attnTokens)
		for j := max(0, i-maxBatch); j < i; j++ {
			if c := cost[j] + float64(i-j)*row + runOverhead; c < cost[i] {
				cost[i], from[i] = c, j
			}
		}
	}
	var ends []int
	for i := n; i > 0; i = from[i] {
		ends = append(ends, i)
	}
	slices.Reverse(ends)
	return ends
}
