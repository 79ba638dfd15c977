package classifier

import (
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
)

// genericTexts say something was wrong without saying what.
var genericTexts = []string{
	"that's wrong", "no", "try again", "not like that", "nope, redo it", "wrong again", "ugh",
	"No.", "that is not right", "you did it wrong again!", "stop", "don't do that", "Nope!! try again please",
	"this is bad", "ugh, no, undo that", "why would you do that", "thats wrong", "dont do that",
}

func TestContentWords(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"stop using sed to edit files", []string{"sed", "edit", "files"}},
		{"nope, redo it", nil},
		{"That's WRONG", nil},
		{"use 2 spaces, not tabs", []string{"2", "spaces", "tabs"}},
		{"no emojis please", []string{"emojis"}},
		{"pnpm, not npm!", []string{"pnpm", "npm"}},
		{"n'utilise pas sed", []string{"utilise", "pas", "sed"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ContentWords(tt.text)); diff != "" {
			t.Errorf("ContentWords(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
	for _, g := range genericTexts {
		if w := ContentWords(g); len(w) != 0 {
			t.Errorf("generic text %q has content words %v", g, w)
		}
	}
}

// TestGenericNeverMatches: with both thresholds at 0, so that without the
// guard every text would auto-match its closest rule, generic texts are
// new_rule (neither auto_match nor confirm against a rule they do not name)
// and say why, while a specific text still auto-matches.
func TestGenericNeverMatches(t *testing.T) {
	zero := &Thresholds{Auto: 0, Confirm: 0}
	c, _ := MustDefaultClassifier(t, Options{Thresholds: zero})
	for _, text := range genericTexts {
		r, err := c.Classify(t.Context(), text, engine.Scope{})
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if r.Decision != DecisionNewRule {
			t.Errorf("generic %q: %s %s (%v), want new_rule", text, r.Decision, r.RuleID, r.Score)
		}
		if !strings.HasPrefix(r.Reason, ReasonGeneric) {
			t.Errorf("generic %q: no generic reason: %+v", text, r)
		}
	}
	if r, _ := c.Classify(t.Context(), "stop editing files with sed", engine.Scope{}); r.Decision != DecisionAutoMatch || r.Reason != "" {
		t.Errorf("a specific text: %+v, want auto_match", r)
	}
	unguarded := New(c.corpus, c.emb, Options{Thresholds: zero, Guard: &Guard{}})
	if r, _ := unguarded.Classify(t.Context(), "ugh", engine.Scope{}); r.Decision != DecisionAutoMatch {
		t.Errorf("without the guard %q is %s; the test no longer shows the guard's effect", "ugh", r.Decision)
	}
}

// TestGenericWithDefaults: with the default lexical bands a generic text
// never matches either; "ugh" is an example's word ("ugh, npm again.
// pnpm!") yet it is new_rule.
func TestGenericWithDefaults(t *testing.T) {
	c, _ := MustDefaultClassifier(t, Options{})
	for _, text := range genericTexts {
		r, err := c.Classify(t.Context(), text, engine.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Decision != DecisionNewRule {
			t.Errorf("generic %q: %s %s, want new_rule", text, r.Decision, r.RuleID)
		}
	}
}

// TestGenericClassifyProposesNoRule: Classify on a generic text that matches
// no rule names no rule (recording it would propose none), and keeps its
// generic reason; a specific text that matches nothing still names the rule
// recording it would propose.
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

// contentWordsReference is ContentWords as first written: the whole text
// lower-cased, split at everything but letters and digits, then filtered.
func contentWordsReference(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(w)) < 2 && !unicode.IsDigit([]rune(w)[0]) || genericWords[w] {
			continue
		}
		out = append(out, w)
	}
	return out
}

// TestContentWordsMatchesReference: the allocation-free word scanner finds
// the words the original split does, and countContentWords counts them up
// to its limit, for many texts (case mappings, invalid UTF-8, long words).
func TestContentWordsMatchesReference(t *testing.T) {
	texts := append(scoringTexts(t), genericTexts...)
	texts = append(texts, "İSTANBUL ǅemal", "ΣΊΣΥΦΟΣ ΟΔΌΣ", "\xff bad utf8 \xfe", strings.Repeat("x", 100)+" long",
		"a b c 1 2", "Ⓐⓑ ⅻ Ⅻ", "", "   ", "NO", "x9 9 é")
	for _, text := range texts {
		want := contentWordsReference(text)
		if d := cmp.Diff(want, ContentWords(text)); d != "" {
			t.Errorf("ContentWords(%q) (-reference +got):\n%s", text, d)
		}
		for _, limit := range []int{1, 2, 3, 100} {
			if got := countContentWords(text, limit); got != min(len(want), limit) {
				t.Errorf("countContentWords(%q, %d) = %d, want %d", text, limit, got, min(len(want), limit))
			}
		}
	}
}
