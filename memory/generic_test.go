package memory

import (
	"strings"
	"testing"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// genericTexts say something was wrong without saying what.
var genericTexts = []string{
	"that's wrong", "no", "try again", "not like that", "nope, redo it", "wrong again", "ugh",
	"No.", "that is not right", "you did it wrong again!", "stop", "don't do that", "Nope!! try again please",
	"this is bad", "ugh, no, undo that", "why would you do that", "thats wrong", "dont do that",
}

// TestGenericRecordsNothing: a generic text that matches no rule proposes no
// candidate rule (the paper's junk: "proposed.that-is-wrong", which later
// generic texts would confirm against); Record stores nothing and says why.
// A specific text that matches nothing still proposes one.
func TestGenericRecordsNothing(t *testing.T) {
	s, db := MustDefaultService(t, bands(0.99, 0.98))
	before, err := db.ListRules(t.Context(), store.RuleFilter{})
	if err != nil {
		t.Fatal(err)
	}
	rows := MustCount(t, db)
	for _, text := range genericTexts {
		resp, _, err := s.Record(t.Context(), engine.Correction{UserText: text})
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if resp.Decision != classifier.DecisionNewRule || resp.Stored() || resp.CreatedRule != nil ||
			!strings.HasPrefix(resp.Reason, classifier.ReasonGeneric) || !strings.Contains(resp.Reason, "nothing was recorded") {
			t.Errorf("generic %q: %+v", text, resp)
		}
	}
	after, err := db.ListRules(t.Context(), store.RuleFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("generic texts created %d rules", len(after)-len(before))
	}
	if got := MustCount(t, db); got != rows {
		t.Errorf("generic texts wrote %+v → %+v", rows, got)
	}
	resp, _, err := s.Record(t.Context(), engine.Correction{UserText: "write commit messages in the imperative mood"})
	if err != nil || resp.Decision != classifier.DecisionNewRule || resp.CreatedRule == nil || !resp.Stored() {
		t.Errorf("a specific text that matches nothing: %+v, %v", resp, err)
	}
}
