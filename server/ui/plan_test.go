package ui

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/registry"
)

const teamYAML = `version: 1
name: team
rules:
  - rule_id: team.changed
    category: code_style
    severity: must
    template: "New text"
  - rule_id: team.new
    category: code_style
    severity: should
    template: "A new rule"
  - rule_id: team.back
    category: code_style
    severity: should
    template: "Back again"
  - rule_id: team.examples
    category: code_style
    severity: should
    template: "Same text"
    examples: ["a new example"]
  - rule_id: team.moved
    category: code_style
    severity: should
    template: "Moved here"
  - rule_id: my.own
    category: code_style
    severity: should
    template: "Mine"
  - rule_id: team.same
    category: code_style
    severity: should
    template: "Unchanged"
`

// TestDescribePlan: the plan's ids (the sync's decisions) get the texts and
// notes that describe them; the plan's lists are kept as they are.
func TestDescribePlan(t *testing.T) {
	reg, err := registry.ParseWith([]byte(teamYAML), registry.ParseOptions{File: "team.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	view := func(id, text, source, regName string, sev engine.Severity, st engine.Status) engine.RuleView {
		return engine.RuleView{Rule: engine.Rule{RuleID: id, Category: "code_style", Severity: sev, Text: text,
			Source: source, Registry: regName, Status: st}}
	}
	rules := []engine.RuleView{
		view("team.changed", "Old text", engine.SourceRegistry, "team", engine.SeverityShould, engine.StatusActiveEligible),
		view("team.back", "Back again", engine.SourceRegistry, "team", engine.SeverityShould, engine.StatusArchived),
		view("team.examples", "Same text", engine.SourceRegistry, "team", engine.SeverityShould, engine.StatusActiveEligible),
		view("team.moved", "Moved here", engine.SourceRegistry, "old", engine.SeverityShould, engine.StatusArchived),
		view("team.gone", "Left the file", engine.SourceRegistry, "team", engine.SeverityShould, engine.StatusActiveEligible),
		view("my.own", "Mine, edited", engine.SourceUser, "", engine.SeverityShould, engine.StatusActiveEligible),
		view("team.same", "Unchanged", engine.SourceRegistry, "team", engine.SeverityShould, engine.StatusActiveEligible),
	}
	plan := memory.RegistryPlan{Registry: "team", Added: []string{"team.new"},
		Updated:  []string{"team.changed", "team.back", "team.examples", "team.moved"},
		Archived: []string{"team.gone"}, Kept: []string{"my.own"}, Unchanged: []string{"team.same"}}
	got := describePlan(reg, plan, rules)
	want := &syncPlan{
		Added: []planItem{{ID: "team.new", Text: "A new rule"}},
		Updated: []planItem{
			{ID: "team.changed", Text: "New text", Note: "changes text and severity"},
			{ID: "team.back", Text: "Back again", Note: "restored from the archive"},
			{ID: "team.examples", Text: "Same text", Note: "changes its examples"},
			{ID: "team.moved", Text: "Moved here", Note: "restored from the archive and taken over from registry old"},
		},
		Archived:  []planItem{{ID: "team.gone", Text: "Left the file"}},
		Kept:      []planItem{{ID: "my.own", Text: "Mine, edited", Note: "a user rule: kept as it is"}},
		Unchanged: 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("describePlan (-want +got):\n%s", diff)
	}
}

func TestJoinWords(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a and b"}, {[]string{"a", "b", "c"}, "a, b and c"},
	} {
		if got := joinWords(c.in); got != c.want {
			t.Errorf("joinWords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
