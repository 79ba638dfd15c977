package memory

import (
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// A suggestion whose direction is unsure (the two readings of its words
// disagree) is never accepted or turned into a rule without the user's
// direction: without a polarity it is refused and nothing is written; with
// one it is accepted that way; it can be rejected as it is.
func TestConfirmUnsureDirectionAsks(t *testing.T) {
	s, db := MustDefaultService(t, bands(0.999, 0.01))
	gate := 0.8
	suggest := func() int64 {
		t.Helper()
		var id int64
		if err := db.Write(t.Context(), t0, func(tx *store.Tx) error {
			var err error
			id, err = tx.CreatePending(engine.Pending{Text: "npm is what we use here, not pnpm", Polarity: engine.Reinforce,
				Candidates: []engine.Candidate{{RuleID: "tool.pnpm-not-npm", Score: 0.7}}, CreatedAt: t0, Gate: &gate, DirectionUnsure: true})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	for _, action := range []string{ActionAccept, ActionNew} {
		id := suggest()
		before := MustCount(t, db)
		if _, err := s.Confirm(t.Context(), id, action, "", 0, t0); engine.ErrorCode(err) != engine.EINVALID {
			t.Errorf("%s without a polarity: %v, want EINVALID asking for one", action, err)
		}
		if after := MustCount(t, db); after != before {
			t.Errorf("%s without a polarity wrote %+v → %+v", action, before, after)
		}
	}
	res, err := s.Confirm(t.Context(), suggest(), ActionAccept, "", engine.Counter, t0)
	if err != nil || res.RecordResult == nil {
		t.Fatalf("accept with polarity −1: %+v, %v", res, err)
	}
	if ev := lastEvent(t, db, res.RuleID); ev.Polarity != engine.Counter {
		t.Errorf("accept with polarity −1 recorded %+v, want a counterexample", ev)
	}
	if _, err := s.Confirm(t.Context(), suggest(), ActionReject, "", 0, t0); err != nil {
		t.Errorf("reject: %v", err)
	}
}
