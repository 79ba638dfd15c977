package memory

import (
	"strings"
	"testing"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/classifier/classifiertest"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// mustPolaritySetup is a service over two rules with hand-set vectors:
// classifiertest.Polarity's r.a and r.b. Bands auto 0.7, confirm 0.5;
// scores are plain cosines (no term score).
func mustPolaritySetup(tb testing.TB) (*Service, *store.DB) {
	tb.Helper()
	reg, emb := classifiertest.Polarity(tb)
	db := MustOpenStore(tb)
	MustSync(tb, db, emb, reg)
	opts := classifier.Options{Thresholds: &classifier.Thresholds{Auto: 0.7, Confirm: 0.5}, TermWeight: new(float64)}
	return New(db, emb, Options{Classifier: opts}), db
}

// TestRecordNeverReinforcesAContradiction: a detected contradiction at auto
// records a counterexample; one sent to confirm keeps polarity −1 so that
// accepting it records a counterexample; the caller's −1 always wins; an
// explicit correction is a reinforcement unless the caller says −1.
func TestRecordNeverReinforcesAContradiction(t *testing.T) {
	s, db := mustPolaritySetup(t)
	ctx := t.Context()
	rule := func() engine.Rule { return mustRule(t, db, "r.a") }
	evidence := func(name string, before engine.Rule, reinforcements, counters int) {
		t.Helper()
		after := rule()
		if after.Reinforcements-before.Reinforcements != reinforcements || after.CounterExamples-before.CounterExamples != counters {
			t.Errorf("%s: %d reinforcements and %d counterexamples added, want %d and %d", name,
				after.Reinforcements-before.Reinforcements, after.CounterExamples-before.CounterExamples, reinforcements, counters)
		}
	}

	before := rule()
	resp := MustRecord(t, s, engine.Correction{UserText: "contrary wording here"})
	if resp.Decision != classifier.DecisionAutoMatch || resp.Polarity != engine.Counter || resp.EventType != engine.EventCounterexample ||
		!strings.HasPrefix(resp.Reason, classifier.ReasonContradiction) {
		t.Errorf("auto contradiction: %+v", resp)
	}
	evidence("auto contradiction", before, 0, 1)

	before = rule()
	resp = MustRecord(t, s, engine.Correction{UserText: "npm is fine here"})
	if resp.Decision != classifier.DecisionConfirm || resp.Polarity != engine.Counter || resp.PendingID == 0 || resp.RecordResult != nil {
		t.Fatalf("unsure contradiction: %+v", resp)
	}
	evidence("unsure contradiction, pending", before, 0, 0)
	p, err := db.GetPending(ctx, resp.PendingID)
	if err != nil || p.Polarity != engine.Counter {
		t.Fatalf("pending %+v, %v: want polarity −1", p, err)
	}
	res, err := s.Confirm(ctx, resp.PendingID, ActionAccept, "", 0, t0)
	if err != nil || res.RuleID != "r.a" {
		t.Fatalf("Confirm: %+v, %v", res, err)
	}
	evidence("unsure contradiction, accepted", before, 0, 1)
	if ev := lastEvent(t, db, "r.a"); ev.EventType != engine.EventConfirmation || ev.Polarity != engine.Counter {
		t.Errorf("confirmation event %+v: want polarity −1", ev)
	}

	before = rule()
	if resp := MustRecord(t, s, engine.Correction{UserText: "reinforcing text"}); resp.Polarity != engine.Reinforce || resp.EventType != engine.EventReinforcement {
		t.Errorf("reinforcement: %+v", resp)
	}
	evidence("reinforcement", before, 1, 0)

	before = rule()
	if resp := MustRecord(t, s, engine.Correction{UserText: "reinforcing text", Polarity: engine.Counter, IdempotencyKey: "k-counter"}); resp.Polarity != engine.Counter || resp.EventType != engine.EventCounterexample {
		t.Errorf("caller's −1: %+v", resp)
	}
	evidence("caller's −1", before, 0, 1)

	before = rule()
	if resp := MustRecord(t, s, engine.Correction{UserText: "CORRECT[r.a]: npm is fine here"}); resp.Decision != classifier.DecisionExplicit || resp.Polarity != engine.Reinforce {
		t.Errorf("explicit: %+v", resp)
	}
	if resp := MustRecord(t, s, engine.Correction{UserText: "npm is fine here", RuleID: "r.a", Polarity: engine.Counter}); resp.Decision != classifier.DecisionExplicit || resp.Polarity != engine.Counter {
		t.Errorf("explicit −1: %+v", resp)
	}
	evidence("explicit", before, 1, 1)
}
