package storetest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// testPendingRoundTrip: an inbox suggestion keeps what the capture gave
// it — its gate probability and whether its direction is unsure — and a
// recorded confirmation has neither; a reporter's instruction is kept.
func testPendingRoundTrip(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	gate := 0.71
	want := []engine.Pending{
		{Text: "stop using sed for edits", Polarity: engine.Reinforce, Candidates: []engine.Candidate{}, CreatedAt: T0, Gate: &gate, DirectionUnsure: true},
		{Text: "use pnpm", Polarity: engine.Counter, Candidates: []engine.Candidate{}, CreatedAt: T0},
		{Text: "别用 npm", Instruction: "Use pnpm, not npm", Polarity: engine.Reinforce, Candidates: []engine.Candidate{}, CreatedAt: T0},
	}
	var ids []int64
	if err := db.Write(ctx, T0, func(tx *store.Tx) error {
		for _, p := range want {
			id, err := tx.CreatePending(p)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		got, err := db.GetPending(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		w := want[i]
		w.ID, w.Status, w.Seen = id, engine.PendingOpen, 1
		got.CreatedAt = got.CreatedAt.UTC()
		if d := cmp.Diff(w, got); d != "" {
			t.Errorf("pending %d (-created +read):\n%s", i, d)
		}
	}
}
