package classifier

import (
	"context"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/registry"
)

// defaultTexts returns the default pack's texts: template and examples
// affirming each rule, contrary phrasings not.
func defaultTexts() []Text {
	reg := registry.Default()
	var out []Text
	for _, d := range reg.Definitions() {
		for _, t := range append([]string{d.Rule.Text}, d.Examples...) {
			out = append(out, Text{RuleID: d.Rule.RuleID, Text: t})
		}
		for _, t := range reg.Contrary(d.Rule.RuleID) {
			out = append(out, Text{RuleID: d.Rule.RuleID, Text: t, Contrary: true})
		}
	}
	return out
}

// TestPreferencesReversed: a correction preferring, with "instead of" or
// "rather than", what its rule's texts reject and rejecting what they prefer
// is reversed; the same preference the right way round, a complaint about
// what the agent did, a text without such a preference and a rule without
// stated preferences are not.
func TestPreferencesReversed(t *testing.T) {
	p := newPreferences(defaultTexts())
	for _, tt := range []struct {
		name, text, rule, want string
	}{
		{"reversed, rather than", "search with grep rather than rg here", "tool.use-ripgrep", "rather than"},
		{"reversed, instead of", "leave the unused function commented out instead of removing it", "code.no-commented-out-code", "instead of"},
		{"the rule's own way round", "search with rg rather than grep", "tool.use-ripgrep", ""},
		{"a complaint about the agent", "you searched with grep instead of rg", "tool.use-ripgrep", ""},
		{"a question", "why grep instead of rg", "tool.use-ripgrep", ""},
		{"negated: insists on the rule", "don't use grep instead of rg", "tool.use-ripgrep", ""},
		{"negated, curly apostrophe", "don’t search with grep instead of rg", "tool.use-ripgrep", ""},
		{"negated: do not", "do not search with grep instead of rg", "tool.use-ripgrep", ""},
		{"negated: never", "never search with grep rather than rg", "tool.use-ripgrep", ""},
		{"negated: stop", "stop searching with grep instead of rg", "tool.use-ripgrep", ""},
		{"negated: no more", "no more grep instead of rg", "tool.use-ripgrep", ""},
		{"called wrong", "searching with grep instead of rg is wrong", "tool.use-ripgrep", ""},
		{"no stated preference", "grep is fine here", "tool.use-ripgrep", ""},
		{"a bare not insists as often as it permits", "grep, not rg", "tool.use-ripgrep", ""},
		{"a rule without stated preferences", "flattery rather than answers", "style.no-flattery", ""},
		{"an unknown rule", "search with grep rather than rg", "r.unknown", ""},
	} {
		if got := p.reversed(tt.text, tt.rule); got != tt.want {
			t.Errorf("%s: reversed(%q, %s) = %q, want %q", tt.name, tt.text, tt.rule, got, tt.want)
		}
	}
	if got := (preferences(nil)).reversed("search with grep rather than rg", "tool.use-ripgrep"); got != "" {
		t.Errorf("no preferences: reversed = %q, want none", got)
	}
}

// TestPreferencesIgnoreMergedCorrections: a correction merged into a rule
// (a complaint, "you used grep instead of rg again") states no preference
// of the rule's, so the rule's own wording is not read as reversed.
func TestPreferencesIgnoreMergedCorrections(t *testing.T) {
	texts := append(defaultTexts(), Text{RuleID: "tool.use-ripgrep", Text: "used grep instead of rg again", Merged: true})
	p := newPreferences(texts)
	for _, text := range []string{"search with rg rather than grep", "use rg instead of grep please"} {
		if got := p.reversed(text, "tool.use-ripgrep"); got != "" {
			t.Errorf("reversed(%q) = %q after a merged complaint, want none", text, got)
		}
	}
}

// TestPreferencesConsistent: no affirming text of the default pack states
// its own rule's preference the other way round, and contrary phrasings
// state none of the preferences.
func TestPreferencesConsistent(t *testing.T) {
	texts := defaultTexts()
	p := newPreferences(texts)
	if len(p) < 10 {
		t.Errorf("preferences of %d rules, want most of the pack's", len(p))
	}
	var contrary []Text
	for _, tx := range texts {
		if tx.Contrary {
			contrary = append(contrary, tx)
			continue
		}
		if got := p.reversed(tx.Text, tx.RuleID); got != "" {
			t.Errorf("%s's own text %q reads as reversed (%q)", tx.RuleID, tx.Text, got)
		}
	}
	if len(contrary) == 0 || len(newPreferences(contrary)) != 0 {
		t.Errorf("preferences of %d contrary texts: %v, want none", len(contrary), newPreferences(contrary))
	}
}

// TestClassifyReversal: with the default pack, a correction stating a
// rule's preference the other way round is not recorded as a
// reinforcement of it.
func TestClassifyReversal(t *testing.T) {
	zero := Thresholds{}
	c, _ := MustDefaultClassifier(t, Options{Thresholds: &zero})
	r, err := c.Classify(context.Background(), "leave the unused function commented out instead of removing it", engine.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if r.RuleID != "code.no-commented-out-code" || r.Polarity != engine.Counter || !strings.Contains(r.Reason, `reversal "instead of"`) {
		t.Errorf("Classify = %s %s polarity %d (%s), want a counterexample of code.no-commented-out-code for its reversal", r.Decision, r.RuleID, r.Polarity, r.Reason)
	}
}

// TestPolarityReversal: a reversed preference is a cue when the wording has
// none, and a sure contradiction when the lean allows.
func TestPolarityReversal(t *testing.T) {
	p := DefaultPolarityCheck()
	ev := evidence{affirm: 0.6, contrary: 0.55, lean: 0.1, reversal: "rather than"}
	got := p.decide(DetectCue("keep it commented rather than deleted"), Insists("keep it commented rather than deleted"), "code.x", ev)
	if got.pol != -1 || got.unsure || got.reason == "" {
		t.Errorf("reversal, evidence combining to 0.05: %+v, want a sure contradiction", got)
	}
	ev.lean = -0.3
	if got := p.decide(DetectCue("keep it commented rather than deleted"), Insists("keep it commented rather than deleted"), "code.x", ev); got.pol != -1 || !got.unsure {
		t.Errorf("reversal, evidence combining to -0.35: %+v, want an unsure contradiction", got)
	}
	ev.reversal = ""
	if got := p.decide(DetectCue("keep it commented rather than deleted"), Insists("keep it commented rather than deleted"), "code.x", ev); got.pol != 1 {
		t.Errorf("no reversal, insisting wording, evidence combining to -0.35: %+v, want a reinforcement", got)
	}
}

// reversed returns the words of text that carry a preference stated the
// other way round by one of rule id's texts ("" when there is none).
func (p preferences) reversed(text, id string) string {
	return p.reversedRules(text)[id]
}
