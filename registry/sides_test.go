package registry

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lexsona/lexsona/engine"
)

// TestMergeSides: a merged registry answers every rule's sides, contrary
// phrasings and checks as its own source does, given or derived; a rule id
// defined by two sources keeps the first source's.
func TestMergeSides(t *testing.T) {
	first := MustParse(t, `version: 1
name: first
rules:
  - rule_id: team.use-just
    category: tool_preference
    severity: must
    template: "Run tasks with just, not make"
    contrary: ["make is fine"]
    prefer: [just]
    avoid: [make, make test]
    enforce: {tool: Bash, pattern: '^make\b'}
`, "first")
	second := MustParse(t, `version: 1
name: second
rules:
  - rule_id: team.use-just
    category: tool_preference
    severity: should
    template: "Use make, never ninja"
  - rule_id: team.tabs
    category: code_style
    severity: style
    template: "Indent with tabs, not spaces"
`, "second")
	union := Merge(first, second)
	for _, tc := range []struct {
		id       string
		sides    engine.Sides
		contrary []string
		checks   int
	}{
		{"team.use-just", engine.Sides{Prefer: []string{"just"}, Avoid: []string{"make", "make test"}}, []string{"make is fine"}, 1},
		{"team.tabs", engine.Sides{Prefer: []string{"tabs"}, Avoid: []string{"spaces"}}, nil, 0}, // derived
		{"team.unknown", engine.Sides{}, nil, 0},
	} {
		if diff := cmp.Diff(tc.sides, union.Sides(tc.id)); diff != "" {
			t.Errorf("Sides(%s) (-want +got):\n%s", tc.id, diff)
		}
		if diff := cmp.Diff(tc.contrary, union.Contrary(tc.id), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Contrary(%s) (-want +got):\n%s", tc.id, diff)
		}
		if n := len(union.Checks(tc.id)); n != tc.checks {
			t.Errorf("Checks(%s): %d, want %d", tc.id, n, tc.checks)
		}
	}
	if got := second.Sides("team.use-just"); !cmp.Equal(got, engine.Sides{Prefer: []string{"make"}, Avoid: []string{"ninja"}}) {
		t.Errorf("the second source's own sides: %+v", got)
	}
}

// TestSidesGivenOnOneSide: a rule that gives only one side keeps it as
// given; nothing is derived for the other.
func TestSidesGivenOnOneSide(t *testing.T) {
	reg := MustParse(t, `version: 1
rules:
  - rule_id: style.no-emoji
    category: communication_style
    severity: style
    template: "Use plain words, no emoji"
    avoid: [emoji, emojis]
    prefer: ~
`, "one")
	want := engine.Sides{Avoid: []string{"emoji", "emojis"}}
	if diff := cmp.Diff(want, reg.Sides("style.no-emoji")); diff != "" {
		t.Errorf("Sides (-want +got):\n%s", diff)
	}
}
