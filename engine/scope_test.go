package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScopeMatches(t *testing.T) {
	req := Scope{Environment: "work", Project: "api", AgentFamily: "claude", ContextTags: []string{"cli", "go"}}
	tests := []struct {
		name     string
		rule     Scope
		want     bool
		mismatch []string // Mismatches, as strings
	}{
		{"global wildcard", Scope{}, true, nil},
		{"same environment", Scope{Environment: "work"}, true, nil},
		{"other environment", Scope{Environment: "personal"}, false, []string{"environment is personal, not work"}},
		{"same project", Scope{Project: "api"}, true, nil},
		{"other project", Scope{Project: "web"}, false, []string{"project is web, not api"}},
		{"other agent", Scope{AgentFamily: "gpt"}, false, []string{"agent_family is gpt, not claude"}},
		{"all tags present", Scope{ContextTags: []string{"cli", "go"}}, true, nil},
		{"one tag missing", Scope{ContextTags: []string{"cli", "php"}}, false, []string{"needs context tag php"}},
		{"excluded tag present", Scope{ExcludeTags: []string{"go"}}, false, []string{"excludes tag go"}},
		{"excluded tag absent", Scope{ExcludeTags: []string{"migration"}}, true, nil},
		{"everything wrong", Scope{Environment: "home", Project: "web", AgentFamily: "gpt", ContextTags: []string{"php", "rust"}, ExcludeTags: []string{"cli", "go"}}, false,
			[]string{"environment is home, not work", "project is web, not api", "agent_family is gpt, not claude",
				"needs context tag php", "needs context tag rust", "excludes tag cli", "excludes tag go"}},
	}
	for _, tt := range tests {
		if got := tt.rule.Matches(req); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
		var got []string
		for _, m := range tt.rule.Mismatches(req) {
			got = append(got, m.String())
		}
		if d := cmp.Diff(tt.mismatch, got); d != "" {
			t.Errorf("%s: mismatches (-want +got)\n%s", tt.name, d)
		}
	}
	if got := (Scope{Project: "api"}).Mismatches(Scope{}); len(got) != 1 || got[0].String() != "project is api, not unset" {
		t.Errorf("project rule against a request without one: %v", got)
	}
	// A rule with a set field never matches a request that leaves it empty.
	if (Scope{Project: "api"}).Matches(Scope{}) {
		t.Error("project rule matched a request without a project")
	}
}

func TestSpecificity(t *testing.T) {
	tests := []struct {
		s    Scope
		want float64
	}{
		{Scope{}, 0},
		{Scope{Environment: "w"}, 1},
		{Scope{Project: "p"}, 2},
		{Scope{AgentFamily: "a"}, 1},
		{Scope{ContextTags: []string{"x", "y"}}, 0.5},
		{Scope{Environment: "w", Project: "p", AgentFamily: "a", ContextTags: []string{"x"}}, 4.5},
		{Scope{ExcludeTags: []string{"x"}}, 0},
	}
	for _, tt := range tests {
		if got := tt.s.Specificity(); got != tt.want {
			t.Errorf("%v: %g, want %g", tt.s, got, tt.want)
		}
	}
}

func TestParseScope(t *testing.T) {
	got, err := ParseScope(Scope{Environment: " Work ", ContextTags: []string{"CLI", "go", "cli", " "}})
	if err != nil {
		t.Fatal(err)
	}
	want := Scope{Environment: "work", ContextTags: []string{"cli", "go"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
	for _, bad := range []Scope{
		{ContextTags: []string{"a b"}},
		{ContextTags: []string{"'; DROP TABLE persona_rules; --"}},
		{Project: "-leading-dash"},
		{Environment: string(make([]byte, 200))},
		{AgentFamily: "\xff"},
		{ExcludeTags: []string{"<script>"}},
	} {
		if _, err := ParseScope(bad); ErrorCode(err) != EINVALID {
			t.Errorf("%q: error %v, want invalid", bad, err)
		}
	}
}

func TestValidateRuleID(t *testing.T) {
	for _, ok := range []string{"tool.no-sed-for-file-editing", "a", "x1.y_2.z-3"} {
		if err := ValidateRuleID(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Tool.X", "a..b", ".a", "a.", "a b", "a/b", "-a", string(make([]byte, 200))} {
		if err := ValidateRuleID(bad); ErrorCode(err) != EINVALID {
			t.Errorf("%q: %v, want invalid", bad, err)
		}
	}
}

func TestScopeString(t *testing.T) {
	tests := []struct {
		s    Scope
		want string
	}{
		{Scope{}, "*/*/*"},
		{Scope{Environment: "work", Project: "api", ContextTags: []string{"cli"}}, "work/api/*[cli]"},
		{Scope{AgentFamily: "claude"}, "*/*/claude"},
		{Scope{ExcludeTags: []string{"migration"}}, "*/*/*[not migration]"},
		{Scope{Environment: "work", ContextTags: []string{"go", "cli"}, ExcludeTags: []string{"generated", "vendor"}}, "work/*/*[go,cli; not generated,vendor]"},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.s, got, tt.want)
		}
	}
}
