package registry

import (
	"slices"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

// TestDefault proves the embedded pack parses cleanly and has the shape the
// classifier and the eval dataset rely on.
func TestDefault(t *testing.T) {
	reg, err := Parse(defaultYAML, "default")
	if err != nil {
		t.Fatalf("default pack: %v", err)
	}
	if n := reg.Len(); n < 24 || n > 30 {
		t.Errorf("default pack has %d rules: want 24–30", n)
	}
	if Default() == nil || Default().Len() != reg.Len() || Default().Name() != "default" {
		t.Fatalf("Default() disagrees with parsing default.yaml")
	}
	categories := map[string]int{}
	topics := map[string][]string{}
	texts := map[string]string{}
	for _, d := range reg.Definitions() {
		r := d.Rule
		categories[r.Category]++
		if r.Topic != "" {
			topics[r.Topic] = append(topics[r.Topic], r.RuleID)
		}
		if len(d.Examples) < 10 || len(d.Examples) > 20 {
			t.Errorf("%s has %d examples: want 10–20 (varied voices: terse, annoyed, polite, quoting the agent)", r.RuleID, len(d.Examples))
		}
		contrary := reg.Contrary(r.RuleID)
		if len(contrary) < 3 || len(contrary) > 5 {
			t.Errorf("%s has %d contrary phrasings: want 3–5", r.RuleID, len(contrary))
		}
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", r.RuleID, err)
		}
		if r.Source != engine.SourceRegistry || r.Status != engine.StatusActiveEligible || r.Registry != "default" {
			t.Errorf("%s: source %q status %q registry %q", r.RuleID, r.Source, r.Status, r.Registry)
		}
		for _, s := range append(append([]string{r.Text}, d.Examples...), reg.Contrary(r.RuleID)...) {
			k := fold(s)
			if other, dup := texts[k]; dup {
				t.Errorf("%q is given by both %s and %s", s, other, r.RuleID)
			}
			texts[k] = r.RuleID
		}
	}
	for _, c := range []string{engine.CategoryToolPreference, engine.CategoryCommunicationStyle, engine.CategorySecurityPolicy, engine.CategoryCodeStyle} {
		if categories[c] < 5 {
			t.Errorf("category %s has %d rules: want at least 5", c, categories[c])
		}
	}
	if len(categories) != 4 {
		t.Errorf("categories %v: want exactly the four named categories (engine.KnownCategories)", categories)
	}
	// The deliberate conflicts: each shared topic pairs a global rule with a scoped one.
	for topic, want := range map[string][]string{
		"verbosity":   {"style.concise-responses", "style.explain-when-learning"},
		"git-commits": {"tool.no-commit-without-asking", "tool.commit-each-step"},
	} {
		if got := topics[topic]; !slices.Equal(got, want) {
			t.Errorf("topic %s: got %v, want %v", topic, got, want)
		}
	}
	for topic, ids := range topics {
		if len(ids) > 1 {
			var scoped int
			for _, id := range ids {
				d, _, _ := reg.Lookup(id)
				if d.Rule.Scope.Specificity() > 0 {
					scoped++
				}
			}
			if scoped == 0 {
				t.Errorf("topic %s: rules %v conflict with no scope to tell them apart", topic, ids)
			}
		}
	}
}
