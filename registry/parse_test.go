package registry

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lexsona/lexsona/engine"
)

// TestParse checks what a valid registry turns into: templates and examples
// trimmed, scope and topic normalised, sides as given or derived, numbers taken as strings, source
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
    prefer: [replace tool]
    avoid: [sed, sed -i, awk]
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
			Topic: "file-editing", Status: engine.StatusActiveEligible, Source: engine.SourceRegistry, Registry: "ok",
		},
		Examples: []string{"stop editing files with sed", "no more sed -i"},
	}, {
		Rule: engine.Rule{
			RuleID: "style.no-emoji", Category: "communication_style", Severity: engine.SeverityStyle,
			Text: "No emoji", Status: engine.StatusActiveEligible, Source: engine.SourceRegistry, Registry: "ok",
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
	for id, want := range map[string]engine.Sides{
		"tool.no-sed-for-file-editing": {Prefer: []string{"replace tool"}, Avoid: []string{"sed", "sed -i", "awk"}},
		"style.no-emoji":               {Avoid: []string{"emoji"}}, // none given: derived from "No emoji"
		"nope":                         {},
	} {
		if diff := cmp.Diff(want, reg.Sides(id)); diff != "" {
			t.Errorf("Sides(%s) (-want +got):\n%s", id, diff)
		}
	}
	if _, line, ok := reg.Lookup("style.no-emoji"); !ok || line != 16 {
		t.Errorf("Lookup(style.no-emoji): line %d ok %v: want 16", line, ok)
	}
	if _, _, ok := reg.Lookup("nope"); ok {
		t.Errorf("Lookup(nope) found a rule")
	}
	if reg.Name() != "ok" || reg.File() != "ok.yaml" || reg.Version() != 1 || reg.Len() != 2 {
		t.Errorf("name %q file %q version %d len %d", reg.Name(), reg.File(), reg.Version(), reg.Len())
	}
}

// TestParseEmpty refuses a registry without rules, naming the file and
// saying how to allow it, unless the caller allows it explicitly: syncing
// one archives every rule of its source.
func TestParseEmpty(t *testing.T) {
	for _, data := range []string{"version: 1\nrules: []\n", "version: 1\nname: team\nrules: []\n"} {
		reg, err := Parse([]byte(data), "rules/team.yaml")
		want := `rules/team.yaml:2:8: the registry has no rules: syncing it would archive every rule of registry "team"; to empty that registry on purpose, sync it with --allow-empty (allow_empty=true over HTTP)`
		if strings.Contains(data, "name:") {
			want = strings.Replace(want, ":2:8:", ":3:8:", 1)
		}
		if reg != nil || engine.ErrorCode(err) != engine.EINVALID || engine.ErrorMessage(err) != want {
			t.Errorf("Parse(%q): %v %v\nwant %s", data, reg, err, want)
		}
		reg, err = ParseWith([]byte(data), ParseOptions{File: "rules/team.yaml", AllowEmpty: true})
		if err != nil || reg.Len() != 0 || reg.Name() != "team" {
			t.Errorf("ParseWith(%q, AllowEmpty): %v %v", data, reg, err)
		}
	}
	// AllowEmpty allows no rules, not other problems.
	if _, err := ParseWith([]byte("version: 1\nrules: []\nextra: 1\n"), ParseOptions{AllowEmpty: true}); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("an unknown key with AllowEmpty: %v", err)
	}
}

// TestParseName: the top-level name wins, then the caller's name, then the
// file's base name without extension, lower-cased; each definition carries
// it, and a name that is not valid is a problem naming where it came from.
func TestParseName(t *testing.T) {
	rules := "rules:\n" + good
	tests := []struct {
		name, yaml string
		opts       ParseOptions
		want       string // the registry's name, or "" for the problem in msg
		msg        string
	}{
		{"top-level name", "version: 1\nname: team-rules.v2\n" + rules, ParseOptions{File: "x.yaml", Name: "other"}, "team-rules.v2", ""},
		{"the caller's name", "version: 1\n" + rules, ParseOptions{File: "dir/x.yaml", Name: "given"}, "given", ""},
		{"the file's base name", "version: 1\n" + rules, ParseOptions{File: "dir/My_Rules.yml"}, "my_rules", ""},
		{"no file and no name given", "version: 1\n" + rules, ParseOptions{}, "",
			"registry:1:1: the registry has no name: add a top-level name: naming its source (e.g. name: team), or give the name when syncing it"},
		{"no file, its own name", "version: 1\nname: team\n" + rules, ParseOptions{}, "team", ""},
		{"the default pack", "version: 1\n" + rules, ParseOptions{File: "default"}, "default", ""},
		{"uppercase name", "version: 1\nname: Team\n" + rules, ParseOptions{File: "x.yaml"}, "",
			`x.yaml:2:7: malformed registry name "Team": use lowercase letters, digits, '-', '_' and '.'`},
		{"name too long", "version: 1\nname: " + strings.Repeat("n", 65) + "\n" + rules, ParseOptions{File: "x.yaml"}, "",
			"x.yaml:2:7: registry name", /* … */
		},
		{"name not a string", "version: 1\nname: [a]\n" + rules, ParseOptions{File: "x.yaml"}, "",
			"x.yaml:2:7: name must be a string, got a list"},
		{"empty name", "version: 1\nname: \"\"\n" + rules, ParseOptions{File: "x.yaml"}, "",
			"x.yaml:2:7: registry name is empty"},
		{"file name with a space", "version: 1\n" + rules, ParseOptions{File: "dir/my rules.yaml"}, "",
			`dir/my rules.yaml:1:1: malformed registry name "my rules": use lowercase letters, digits, '-', '_' and '.', starting with a letter or digit, without ".." (from the file name): add a top-level name:`},
		{"bad name given", "version: 1\n" + rules, ParseOptions{File: "x.yaml", Name: "a/b"}, "",
			`x.yaml:1:1: malformed registry name "a/b": use lowercase letters, digits, '-', '_' and '.', starting with a letter or digit, without ".." (from the name given): add a top-level name:`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, err := ParseWith([]byte(tt.yaml), tt.opts)
			if tt.want == "" {
				if engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(engine.ErrorMessage(err), tt.msg) {
					t.Errorf("got %v, want EINVALID with %q", err, tt.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if reg.Name() != tt.want {
				t.Errorf("name %q, want %q", reg.Name(), tt.want)
			}
			for _, d := range reg.Definitions() {
				if d.Rule.Registry != tt.want {
					t.Errorf("%s: registry %q, want %q", d.Rule.RuleID, d.Rule.Registry, tt.want)
				}
			}
		})
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
