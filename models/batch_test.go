package models

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPlanSubBatches(t *testing.T) {
	tests := []struct {
		name     string
		lens     []int
		maxBatch int
		want     []int
	}{
		{"empty", nil, 32, nil},
		{"one", []int{7}, 32, []int{1}},
		{"similar lengths stay together", []int{10, 11, 12, 12, 14}, 32, []int{5}},
		{"max batch", []int{5, 5, 5, 5, 5}, 2, []int{1, 3, 5}}, // three runs of at most 2
		{"long texts run apart", []int{8, 9, 10, 12, 256, 256}, 32, []int{4, 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, planSubBatches(tt.lens, tt.maxBatch)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestRunSorted checks that rows reach fn sorted by length, padded only to
// their sub-batch's longest, and come back in input order.
func TestRunSorted(t *testing.T) {
	encs := make([]Encoding, 0, 6)
	for _, n := range []int{256, 12, 10, 13, 256, 11} {
		encs = append(encs, Encoding{IDs: make([]int64, n), TypeIDs: make([]int64, n)})
	}
	var calls [][]int
	var seqs []int
	out, err := RunSorted(context.Background(), encs, 32, func(_ context.Context, idx []int, b Batch) ([][]float32, error) {
		calls = append(calls, append([]int(nil), idx...))
		seqs = append(seqs, b.SeqLen)
		v := make([][]float32, len(idx))
		for r, i := range idx {
			v[r] = []float32{float32(i)}
		}
		return v, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]int{{2, 5, 1, 3}, {0, 4}}, calls); d != "" {
		t.Errorf("sub-batches (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{13, 256}, seqs); d != "" {
		t.Errorf("padded lengths (-want +got):\n%s", d)
	}
	for i, v := range out {
		if v[0] != float32(i) {
			t.Errorf("output %d holds text %v", i, v[0])
		}
	}
}
