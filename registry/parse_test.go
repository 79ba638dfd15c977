package registry

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lexsona/lexsona/engine"
)

// TestParse checks what a valid registry turns into: templates and examples
// trimmed, scope and topic normalised, numbers taken as strings, source
// registry and status active-eligible on every rule.
func TestParse(t *testing.T) {
	data := `# comment
version: 1
rules:
  - rule_id: tool.no-sed-for-file-editing
    category: tool_preference
    severity: MUST
    template: >
      Never use sed, awk or perl one-liners to edit files;
      use the editor's replace tool instead
    examples: ["  stop editing files with sed ", "no more sed -i"]
    contrary: [" sed is fine here  "]
    scope: {environment: Work, project: 2024, agent_family: claude, context_tags: [CLI, ci, cli], exclude_tags: []}
    topic: File-Editing
  - rule_id: style.no-emoji
    category: communication_style
    severity: style
    template: No emoji
    examples:
    scope:
    topic:
`
	reg, err := Parse([]byte(data), "ok.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.Definition{{
		Rule: engine.Rule{
			RuleID: "tool.no-sed-for-file-editing", Category: "tool_preference", Severity: engine.SeverityMust,
			Text:  "Never use sed, awk or perl one-liners to edit files; use the editor's replace tool instead",
			Scope: engine.Scope{Environment: "work", Project: "2024", AgentFamily: "claude", ContextTags: []string{"ci", "cli"}},
			Topic: "file-editing", Status: engine.StatusActiveEligible, Source: engine.SourceRegistry,
		},
		Examples: []string{"stop editing files with sed", "no more sed -i"},
	}, {
		Rule: engine.Rule{
			RuleID: "style.no-emoji", Category: "communication_style", Severity: engine.SeverityStyle,
			Text: "No emoji", Status: engine.StatusActiveEligible, Source: engine.SourceRegistry,
		},
	}}
	if diff := cmp.Diff(want, reg.Definitions()); diff != "" {
		t.Errorf("definitions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{want[0].Rule.Text, "stop editing files with sed", "no more sed -i", "sed is fine here", "No emoji"}, reg.Texts()); diff != "" {
		t.Errorf("texts (-want +got):\n%s", diff)
	}
	for id, want := range map[string][]string{"tool.no-sed-for-file-editing": {"sed is fine here"}, "style.no-emoji": nil, "nope": nil} {
		if diff := cmp.Diff(want, reg.Contrary(id), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Contrary(%s) (-want +got):\n%s", id, diff)
		}
	}
	if _, line, ok := reg.Lookup("style.no-emoji"); !ok || line != 14 {
		t.Errorf("Lookup(style.no-emoji): line %d ok %v: want 14", line, ok)
	}
	if _, _, ok := reg.Lookup("nope"); ok {
		t.Errorf("Lookup(nope) found a rule")
	}
	if reg.Name() != "ok.yaml" || reg.Version() != 1 || reg.Len() != 2 {
		t.Errorf("name %q version %d len %d", reg.Name(), reg.Version(), reg.Len())
	}
}

// TestParseEmptyRules accepts an explicit empty list: syncing it archives
// every registry rule, which is what an emptied file means.
func TestParseEmptyRules(t *testing.T) {
	reg, err := Parse([]byte("version: 1\nrules: []\n"), "")
	if err != nil || reg.Len() != 0 || reg.Name() != "registry" {
		t.Fatalf("Parse: %v %v", reg, err)
	}
}

// FuzzParse: no input panics, an error always carries EINVALID or ETOOLARGE,
// and every rule of a registry that parses is a valid engine rule.
func FuzzParse(f *testing.F) {
	f.Add(defaultYAML)
	f.Add(billionLaughs())
	f.Add([]byte("version: 1\nrules:\n" + good))
	f.Add([]byte("version: 1\nrules:\n  - {rule_id: a, category: c, severity: must, template: t, scope: {context_tags: [x]}, examples: [y]}\n"))
	f.Add([]byte("version: 1\nrules: [&a {rule_id: a}, *a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		reg, err := Parse(data, "fuzz.yaml")
		if err != nil {
			if c := engine.ErrorCode(err); c != engine.EINVALID && c != engine.ETOOLARGE {
				t.Fatalf("code %q: %v", c, err)
			}
			return
		}
		for _, d := range reg.Definitions() {
			if err := d.Rule.Validate(); err != nil {
				t.Fatalf("%s: %v", d.Rule.RuleID, err)
			}
			for _, e := range d.Examples {
				if err := engine.ValidateText("example", e, engine.MaxRuleTextLength); err != nil {
					t.Fatalf("%s: %v", d.Rule.RuleID, err)
				}
			}
		}
	})
}
