package classifier

import (
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// TestGenericClassifyProposesNoRule: Classify on a generic text that matches
// no rule names no rule (Record would propose none), and keeps its generic
// reason; a specific text that matches nothing still names the rule Record
// would propose.
func TestGenericClassifyProposesNoRule(t *testing.T) {
	c, _ := MustDefaultClassifier(t, Options{Thresholds: &Thresholds{Auto: 0.99, Confirm: 0.98}})
	for _, text := range genericTexts {
		r, err := c.Classify(t.Context(), text, engine.Scope{})
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if r.Decision != DecisionNewRule || r.RuleID != "" || !strings.HasPrefix(r.Reason, ReasonGeneric) {
			t.Errorf("generic %q: decision %s, rule %q, reason %q; want new_rule, no rule, a generic reason", text, r.Decision, r.RuleID, r.Reason)
		}
	}
	text := "write commit messages in the imperative mood"
	r, err := c.Classify(t.Context(), text, engine.Scope{})
	if err != nil || r.Decision != DecisionNewRule || r.RuleID != engine.ProposedRuleID(text) {
		t.Errorf("a specific text that matches nothing: %+v, %v; want new_rule %s", r, err, engine.ProposedRuleID(text))
	}
}

// TestUnmatchedCounterRecordsNothing: a counterexample that matches no rule
// has nothing to count against: Record creates no candidate (a candidate
// would turn the counterexample into a reinforcement), stores nothing and
// says why.
func TestUnmatchedCounterRecordsNothing(t *testing.T) {
	c, db := MustDefaultClassifier(t, Options{Thresholds: &Thresholds{Auto: 0.99, Confirm: 0.98}})
	before := MustCount(t, db)
	resp, _, err := c.Record(t.Context(), RecordRequest{Text: "write commit messages in the imperative mood", Polarity: engine.Counter})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Decision != DecisionNewRule || resp.Stored() || resp.CreatedRule != nil || resp.Polarity != engine.Counter ||
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
	c, db := MustDefaultClassifier(t, Options{})
	var id int64
	err := db.Write(t.Context(), func(tx *store.Tx) error {
		var err error
		id, err = tx.CreatePending(engine.Pending{Text: "npm is fine in this repo", Polarity: engine.Counter,
			Candidates: []engine.Candidate{{RuleID: "tooling.pnpm-not-npm", Score: 0.6}}, Model: "m", CreatedAt: at0})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	before := MustCount(t, db)
	_, err = c.Confirm(t.Context(), id, ActionNew, "", at0)
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
	if _, err := c.Confirm(t.Context(), id, ActionReject, "", at0); err != nil {
		t.Errorf("reject after refusal: %v", err)
	}
}

var at0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
