package memory

import (
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// TestUnmatchedCounterRecordsNothing: a counterexample that matches no rule
// has nothing to count against: Record creates no candidate (a candidate
// would turn the counterexample into a reinforcement), stores nothing and
// says why.
func TestUnmatchedCounterRecordsNothing(t *testing.T) {
	s, db := MustDefaultService(t, bands(0.99, 0.98))
	before := MustCount(t, db)
	resp, _, err := s.Record(t.Context(), engine.Correction{UserText: "write commit messages in the imperative mood", Polarity: engine.Counter})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Decision != classifier.DecisionNewRule || resp.Stored() || resp.CreatedRule != nil || resp.Polarity != engine.Counter ||
		!strings.Contains(resp.Reason, "counterexample") || !strings.Contains(resp.Reason, "nothing was recorded") {
		t.Errorf("unmatched counterexample: %+v", resp)
	}
	if after := MustCount(t, db); after != before {
		t.Errorf("unmatched counterexample wrote something: %+v, before %+v", after, before)
	}
}

// TestConfirmNewRefusesCounter: resolving a pending counterexample as a new
// rule is refused (EINVALID naming the way out) and leaves it open; it can
// still be accepted or rejected.
func TestConfirmNewRefusesCounter(t *testing.T) {
	s, db := MustDefaultService(t, Options{})
	var id int64
	err := db.Write(t.Context(), t0, func(tx *store.Tx) error {
		var err error
		id, err = tx.CreatePending(engine.Pending{Text: "npm is fine in this repo", Polarity: engine.Counter,
			Candidates: []engine.Candidate{{RuleID: "tooling.pnpm-not-npm", Score: 0.6}}, Model: "m", CreatedAt: at0})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	before := MustCount(t, db)
	_, err = s.Confirm(t.Context(), id, ActionNew, "", 0, at0)
	MustCode(t, err, engine.EINVALID)
	if err != nil && !strings.Contains(err.Error(), "counterexample") {
		t.Errorf("refusal does not say why: %v", err)
	}
	if after := MustCount(t, db); after != before {
		t.Errorf("a refused confirm --new wrote something: %+v, before %+v", after, before)
	}
	p, err := db.GetPending(t.Context(), id)
	if err != nil || p.Status != engine.PendingOpen {
		t.Fatalf("pending after refusal: %+v, %v", p, err)
	}
	if _, err := s.Confirm(t.Context(), id, ActionReject, "", 0, at0); err != nil {
		t.Errorf("reject after refusal: %v", err)
	}
}

var at0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
