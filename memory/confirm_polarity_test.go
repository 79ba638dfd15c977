package memory

import (
	"testing"

	"github.com/lexsona/lexsona/engine"
)

// The user sets a pending confirmation's direction: accepting with
// polarity 1 records a reinforcement whatever the classifier read, −1 a
// counterexample; a contradiction turned into support may propose a rule,
// and a polarity other than 1, −1 or 0, or one given with reject, is
// refused without writing anything.
func TestConfirmSetsPolarity(t *testing.T) {
	s, db := MustDefaultService(t, bands(0.999, 0.01))
	pending := func(text string, counter bool) int64 {
		t.Helper()
		c := engine.Correction{UserText: text}
		if counter {
			c.Polarity = engine.Counter
		}
		res := MustRecord(t, s, c)
		if res.PendingID == 0 {
			t.Fatalf("%q: %s, want a pending confirmation", text, res.Decision)
		}
		return res.PendingID
	}
	for _, tc := range []struct {
		name    string
		counter bool
		action  string
		pol     engine.Polarity
		want    engine.EventType // "" for an error
	}{
		{"contradiction accepted as support", true, ActionAccept, engine.Reinforce, engine.EventReinforcement},
		{"support accepted as contradiction", false, ActionAccept, engine.Counter, engine.EventCounterexample},
		{"kept as it was", true, ActionAccept, 0, engine.EventCounterexample},
		{"a contradiction turned into support proposes a rule", true, ActionNew, engine.Reinforce, engine.EventCreation},
		{"a new rule from a contradiction is refused", false, ActionNew, engine.Counter, ""},
		{"polarity with reject is refused", false, ActionReject, engine.Reinforce, ""},
		{"polarity 2 is refused", false, ActionAccept, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := pending("we use pnpm in this repo, please, "+tc.name, tc.counter)
			before := MustCount(t, db)
			res, err := s.Confirm(t.Context(), id, tc.action, "", tc.pol, t0)
			if tc.want == "" {
				if engine.ErrorCode(err) != engine.EINVALID {
					t.Fatalf("err %v, want EINVALID", err)
				}
				if after := MustCount(t, db); after != before {
					t.Errorf("a refused confirmation wrote: %+v → %+v", before, after)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.RecordResult == nil {
				t.Fatalf("got %+v, want evidence", res)
			}
			got := res.EventType
			if ev := lastEvent(t, db, res.RuleID); got == engine.EventConfirmation {
				got = ev.Polarity.EventType()
			}
			if got != tc.want {
				t.Fatalf("recorded %s (%+v), want %s", got, res.RecordResult, tc.want)
			}
		})
	}
}
