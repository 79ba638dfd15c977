package memory

import (
	"slices"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// TestAddRule: a rule a user adds is stored at the prior with its text's
// vector, so the next correction with that text auto-matches it; a bad field
// or an id that exists is refused and writes nothing.
func TestAddRule(t *testing.T) {
	s, db := MustDefaultService(t, Options{})
	text := "always feed the numbats before you deploy"
	n := NewRule{RuleID: "user.feed-numbats", Category: "general", Text: text, At: t0}
	before := MustCount(t, db)
	got, err := s.AddRule(t.Context(), n)
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.DefaultConfig()
	if got.RuleID != n.RuleID || got.Text != text || got.Severity != engine.SeverityShould || got.Status != engine.StatusActiveEligible ||
		got.Alpha != cfg.AlphaPrior || got.Beta != cfg.BetaPrior || !got.FirstSeen.Equal(t0) {
		t.Errorf("stored %+v", got)
	}
	after := MustCount(t, db)
	if d := (counts{after.Rules - before.Rules, after.Events - before.Events, after.Pending - before.Pending,
		after.Texts - before.Texts, after.Embeddings - before.Embeddings}); d != (counts{Rules: 1, Events: 1, Texts: 1, Embeddings: 1}) {
		t.Errorf("AddRule wrote %+v", d)
	}
	resp := MustRecord(t, s, engine.Correction{UserText: text})
	if resp.Decision != classifier.DecisionAutoMatch || resp.RuleID != n.RuleID || resp.Score != 1 {
		t.Errorf("the rule's own text: %+v", resp)
	}

	before = MustCount(t, db)
	for _, tt := range []struct {
		name string
		n    NewRule
		code string
		says string
	}{
		{"no category", NewRule{RuleID: "user.feed-bilbies", Text: "feed the bilbies"}, engine.EINVALID, "category"},
		{"bad severity", NewRule{RuleID: "user.feed-bilbies", Category: "general", Severity: "maybe", Text: "feed the bilbies"}, engine.EINVALID, "maybe"},
		{"bad id", NewRule{RuleID: "Feed Bilbies", Category: "general", Text: "feed the bilbies"}, engine.EINVALID, "Feed Bilbies"},
		{"id exists", n, engine.ECONFLICT, n.RuleID},
		// 65 tags as given, though blanks and repeats fold them to one.
		{"too many tags", NewRule{RuleID: "user.feed-bilbies", Category: "general", Text: "feed the bilbies",
			Scope: engine.Scope{ExcludeTags: append(slices.Repeat([]string{" "}, 64), "go")}}, engine.EINVALID, "65 exclude tags"},
	} {
		_, err := s.AddRule(t.Context(), tt.n)
		if engine.ErrorCode(err) != tt.code || !strings.Contains(engine.ErrorMessage(err), tt.says) {
			t.Errorf("%s: %v; want %s naming %q", tt.name, err, tt.code, tt.says)
		}
	}
	if after := MustCount(t, db); after != before {
		t.Errorf("refused rules wrote %+v → %+v", before, after)
	}
}
