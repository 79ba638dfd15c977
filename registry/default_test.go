package registry

import (
	"slices"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/lexsona/lexsona/engine"
)

// TestDefault proves the embedded pack parses cleanly and has the shape the
// classifier and the eval dataset rely on.
func TestDefault(t *testing.T) {
	reg, err := Parse(defaultYAML, "default")
	if err != nil {
		t.Fatalf("default pack: %v", err)
	}
	if n := reg.Len(); n != 39 {
		t.Errorf("default pack has %d rules: want 39", n)
	}
	given := givenSides(t)
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
		if sides := reg.Sides(r.RuleID); !given[r.RuleID] || sides.Empty() {
			t.Errorf("%s gives no prefer: or avoid: (sides %+v)", r.RuleID, sides)
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

// givenSides returns the ids of the default pack's rules that give prefer:
// or avoid: themselves (not derived from their template).
func givenSides(t *testing.T) map[string]bool {
	t.Helper()
	var pack struct {
		Rules []struct {
			ID     string   `yaml:"rule_id"`
			Prefer []string `yaml:"prefer"`
			Avoid  []string `yaml:"avoid"`
		}
	}
	if err := yaml.Unmarshal(defaultYAML, &pack); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, r := range pack.Rules {
		out[r.ID] = len(r.Prefer)+len(r.Avoid) > 0
	}
	return out
}

// TestDefaultNewRules: the rules the eval's datasets name are in the pack,
// in the category their prefix says.
func TestDefaultNewRules(t *testing.T) {
	for id, category := range map[string]string{
		"style.do-it-yourself":         engine.CategoryCommunicationStyle,
		"style.plan-before-code":       engine.CategoryCommunicationStyle,
		"style.no-unrequested-docs":    engine.CategoryCommunicationStyle,
		"style.follow-rules-files":     engine.CategoryCommunicationStyle,
		"tool.no-dev-servers":          engine.CategoryToolPreference,
		"tool.stay-in-project":         engine.CategoryToolPreference,
		"tool.jq-for-json":             engine.CategoryToolPreference,
		"code.real-services-not-mocks": engine.CategoryCodeStyle,
		"code.keep-docs-updated":       engine.CategoryCodeStyle,
		"code.no-invented-apis":        engine.CategoryCodeStyle,
	} {
		d, _, ok := Default().Lookup(id)
		switch {
		case !ok:
			t.Errorf("%s is not in the default pack", id)
		case d.Rule.Category != category:
			t.Errorf("%s: category %s, want %s", id, d.Rule.Category, category)
		case d.Rule.Scope.Specificity() != 0:
			t.Errorf("%s is scoped (%+v): it applies everywhere", id, d.Rule.Scope)
		}
	}
}
