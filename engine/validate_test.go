package engine

import (
	"strings"
	"testing"
	"time"
)

// checkErr fails unless err has code want ("" for no error) and, for an
// error, a message containing msg.
func checkErr(t *testing.T, what string, err error, want, msg string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Errorf("%s: %v, want no error", what, err)
		}
		return
	}
	if ErrorCode(err) != want || !strings.Contains(ErrorMessage(err), msg) {
		t.Errorf("%s: %v, want %s with %q", what, err, want, msg)
	}
}

func TestValidateCategory(t *testing.T) {
	tests := []struct{ in, want, msg string }{
		{"tool_preference", "", ""},
		{"deploy", "", ""},
		{"a1_b2", "", ""},
		{"", EINVALID, "category is required: one of tool_preference, communication_style, security_policy, code_style, or another lowercase word"},
		{"Tool_Preference", EINVALID, `malformed category "Tool_Preference": want a lowercase word`},
		{"tool preference", EINVALID, "malformed category"},
		{"tool-preference", EINVALID, "malformed category"},
		{"1st", EINVALID, "malformed category"},
		{"_x", EINVALID, "malformed category"},
		{"x'; DROP TABLE persona_rules;--", EINVALID, "malformed category"},
	}
	for _, tt := range tests {
		checkErr(t, "ValidateCategory("+tt.in+")", ValidateCategory(tt.in), tt.want, tt.msg)
	}
}

func TestValidateSource(t *testing.T) {
	tests := []struct{ in, want, msg string }{
		{SourceRegistry, "", ""},
		{SourceUser, "", ""},
		{SourceCorrection, "", ""},
		{"bogus", EINVALID, `unknown source "bogus": want registry, user or correction`},
		{"Registry", EINVALID, "unknown source"},
		{"", EINVALID, `unknown source ""`},
		{strings.Repeat("s", 100), EINVALID, `"` + strings.Repeat("s", 64) + `": want`}, // the value is cut at 64
	}
	for _, tt := range tests {
		checkErr(t, "ValidateSource("+tt.in+")", ValidateSource(tt.in), tt.want, tt.msg)
	}
}

func TestParseSeverity(t *testing.T) {
	tests := []struct {
		in   string
		out  Severity
		want string
	}{
		{"must", SeverityMust, ""},
		{" Should ", SeverityShould, ""},
		{"STYLE", SeverityStyle, ""},
		{"", "", EINVALID},
		{"urgent", "", EINVALID},
	}
	for _, tt := range tests {
		got, err := ParseSeverity(tt.in)
		checkErr(t, "ParseSeverity("+tt.in+")", err, tt.want, "want must, should or style")
		if got != tt.out {
			t.Errorf("ParseSeverity(%q) = %q, want %q", tt.in, got, tt.out)
		}
	}
}

func TestParseStatus(t *testing.T) {
	tests := []struct {
		in   string
		out  Status
		want string
	}{
		{"active-eligible", StatusActiveEligible, ""},
		{" Candidate", StatusCandidate, ""},
		{"archived", StatusArchived, ""},
		{"active", "", EINVALID},
		{"", "", EINVALID},
	}
	for _, tt := range tests {
		got, err := ParseStatus(tt.in)
		checkErr(t, "ParseStatus("+tt.in+")", err, tt.want, "want active-eligible, candidate or archived")
		if got != tt.out {
			t.Errorf("ParseStatus(%q) = %q, want %q", tt.in, got, tt.out)
		}
	}
}

func TestParsePolarity(t *testing.T) {
	tests := []struct {
		in   int
		out  Polarity
		want string
	}{
		{0, Reinforce, ""},
		{1, Reinforce, ""},
		{-1, Counter, ""},
		{2, 0, EINVALID},
		{-2, 0, EINVALID},
	}
	for _, tt := range tests {
		got, err := ParsePolarity(tt.in)
		checkErr(t, "ParsePolarity", err, tt.want, "want 1 (reinforcement) or -1 (counterexample)")
		if got != tt.out {
			t.Errorf("ParsePolarity(%d) = %d, want %d", tt.in, got, tt.out)
		}
	}
}

func TestValidateText(t *testing.T) {
	tests := []struct {
		name, in  string
		max       int
		want, msg string
	}{
		{"plain", "stop using sed", 100, "", ""},
		{"no limit", strings.Repeat("x", 5000), 0, "", ""},
		{"at the limit", "12345", 5, "", ""},
		{"over the limit", "123456", 5, ETOOLARGE, "field is 6 bytes long: at most 5"},
		{"empty", "", 5, EINVALID, "field is empty"},
		{"white space", " \t\n", 5, EINVALID, "field is empty"},
		{"invalid UTF-8", "a\xffb", 5, EINVALID, "field is not valid UTF-8"},
	}
	for _, tt := range tests {
		checkErr(t, tt.name, ValidateText("field", tt.in, tt.max), tt.want, tt.msg)
	}
}

func TestValidateScopeValue(t *testing.T) {
	tests := []struct{ in, want, msg string }{
		{"api", "", ""},
		{"team/api@v2+x:y.z_w-1", "", ""},
		{"9lives", "", ""},
		{strings.Repeat("a", MaxScopeValueLength), "", ""},
		{strings.Repeat("a", MaxScopeValueLength+1), EINVALID, "scope project is 129 bytes long: at most 128"},
		{"", EINVALID, "has characters that are not allowed"},
		{"API", EINVALID, `scope project "API" has characters that are not allowed`},
		{"-api", EINVALID, "starting with a letter or digit"},
		{"../etc", EINVALID, "has characters that are not allowed"},
		{"my project", EINVALID, "has characters that are not allowed"},
		{"caf\u00e9", EINVALID, "has characters that are not allowed"},
	}
	for _, tt := range tests {
		checkErr(t, "ValidateScopeValue("+tt.in+")", ValidateScopeValue("scope project", tt.in), tt.want, tt.msg)
	}
}

func TestScopeValidate(t *testing.T) {
	many := make([]string, MaxScopeTags+1)
	for i := range many {
		many[i] = "t" + itoa(i)
	}
	tests := []struct {
		name      string
		s         Scope
		want, msg string
	}{
		{"empty", Scope{}, "", ""},
		{"every field", Scope{Environment: "work", Project: "api", AgentFamily: "claude", ContextTags: []string{"cli"}, ExcludeTags: []string{"migration"}}, "", ""},
		{"bad environment", Scope{Environment: "Work"}, EINVALID, "scope environment"},
		{"bad agent", Scope{AgentFamily: "a b"}, EINVALID, "scope agent_family"},
		{"bad context tag", Scope{ContextTags: []string{"ok", "no way"}}, EINVALID, `context tag "no way"`},
		{"bad exclude tag", Scope{ExcludeTags: []string{"<x>"}}, EINVALID, `exclude tag "<x>"`},
		{"too many tags", Scope{ContextTags: many}, EINVALID, "65 context tags: at most 64"},
		{"too many exclusions", Scope{ExcludeTags: many}, EINVALID, "65 exclude tags: at most 64"},
	}
	for _, tt := range tests {
		checkErr(t, tt.name, tt.s.Validate(), tt.want, tt.msg)
	}
}

func TestRuleValidate(t *testing.T) {
	base := func() Rule {
		return NewRule("tool.no-sed", CategoryToolPreference, SeverityMust, "Never use sed", Scope{}, DefaultConfig(), t0)
	}
	tests := []struct {
		name      string
		edit      func(*Rule)
		want, msg string
	}{
		{"valid", func(*Rule) {}, "", ""},
		{"with a topic", func(r *Rule) { r.Topic = "file-editing" }, "", ""},
		{"bad id", func(r *Rule) { r.RuleID = "Tool X" }, EINVALID, "malformed rule id"},
		{"no category", func(r *Rule) { r.Category = "" }, EINVALID, "category is required"},
		{"bad severity", func(r *Rule) { r.Severity = "urgent" }, EINVALID, `unknown severity "urgent"`},
		{"empty text", func(r *Rule) { r.Text = " " }, EINVALID, "rule text is empty"},
		{"long text", func(r *Rule) { r.Text = strings.Repeat("x", MaxRuleTextLength+1) }, ETOOLARGE, "rule text is 4097 bytes long"},
		{"no letter or digit", func(r *Rule) { r.Text = "} -> {" }, EINVALID, "has no letters or digits"},
		{"bad topic", func(r *Rule) { r.Topic = "File Editing" }, EINVALID, "topic"},
		{"bad status", func(r *Rule) { r.Status = "live" }, EINVALID, `unknown status "live"`},
		{"bad scope", func(r *Rule) { r.Scope.Project = "my project" }, EINVALID, "scope project"},
		{"from a registry", func(r *Rule) { r.Source, r.Registry = SourceRegistry, "team-rules" }, "", ""},
		{"bad registry name", func(r *Rule) { r.Registry = "Team Rules" }, EINVALID, `malformed registry name "Team Rules"`},
	}
	for _, tt := range tests {
		r := base()
		tt.edit(&r)
		checkErr(t, tt.name, r.Validate(), tt.want, tt.msg)
	}
}

func TestCorrectionValidate(t *testing.T) {
	base := func() Correction {
		return Correction{RuleID: "tool.no-sed", Polarity: Reinforce, UserText: "stop using sed", At: t0}
	}
	tests := []struct {
		name      string
		edit      func(*Correction)
		want, msg string
	}{
		{"valid", func(*Correction) {}, "", ""},
		{"no rule id: classified", func(c *Correction) { c.RuleID = "" }, "", ""},
		{"counterexample", func(c *Correction) { c.Polarity = Counter }, "", ""},
		{"bad rule id", func(c *Correction) { c.RuleID = "../etc" }, EINVALID, "malformed rule id"},
		{"no polarity", func(c *Correction) { c.Polarity = 0 }, EINVALID, "polarity 0"},
		{"empty text", func(c *Correction) { c.UserText = "" }, EINVALID, "correction text is empty"},
		{"text over 1 MiB", func(c *Correction) { c.UserText = strings.Repeat("x", MaxUserTextLength+1) }, ETOOLARGE, "correction text is 1048577 bytes long"},
		{"blank agent output", func(c *Correction) { c.AgentOutput = " " }, EINVALID, "agent output is empty"},
		{"long frame id", func(c *Correction) { c.FrameID = strings.Repeat("f", 257) }, EINVALID, "frame id is 257 bytes long: at most 256"},
		{"frame id with a line feed", func(c *Correction) { c.FrameID = "a\nb" }, EINVALID, "frame id contains a control character (U+000A LF (line feed)) at byte 1"},
		{"agent output with ESC", func(c *Correction) { c.AgentOutput = "ok\x1b[2J" }, EINVALID, "agent output contains a control character (U+001B ESC (escape))"},
		{"long idempotency key", func(c *Correction) { c.IdempotencyKey = strings.Repeat("k", 257) }, EINVALID, "idempotency key is 257 bytes long"},
		{"bad scope", func(c *Correction) { c.Scope.ContextTags = []string{"a b"} }, EINVALID, `context tag "a b"`},
		{"no time", func(c *Correction) { c.At = time.Time{} }, EINVALID, "correction time is not set"},
	}
	for _, tt := range tests {
		c := base()
		tt.edit(&c)
		checkErr(t, tt.name, c.Validate(), tt.want, tt.msg)
	}
}

func TestValidateLine(t *testing.T) {
	tests := []struct{ in, want, msg string }{
		{"", "", ""},
		{"frame-42 ok", "", ""},
		{"caf\u00e9 \u200e mark", "", ""},
		{"a\tb", EINVALID, "f contains a control character (U+0009 TAB) at byte 1: remove it"},
		{"a\r\nb", EINVALID, "f contains a control character (U+000D CR (carriage return)) at byte 1"},
		{"\xff", EINVALID, "f is not valid UTF-8"},
		{"x\u202ey", EINVALID, "f contains a bidirectional formatting character (U+202E RIGHT-TO-LEFT OVERRIDE) at byte 1"},
		{"\u0085", EINVALID, "f contains a control character (U+0085)"},
	}
	for _, tt := range tests {
		checkErr(t, "ValidateLine("+tt.in+")", ValidateLine("f", tt.in), tt.want, tt.msg)
	}
}

func TestValidateRegistryName(t *testing.T) {
	tests := []struct{ in, want, msg string }{
		{"default", "", ""},
		{"team-rules_2.v1", "", ""},
		{"x", "", ""},
		{strings.Repeat("n", 64), "", ""},
		{"", EINVALID, "registry name is empty"},
		{strings.Repeat("n", 65), EINVALID, "is 65 bytes long: at most 64"},
		{"Team", EINVALID, `malformed registry name "Team": use lowercase letters, digits, '-', '_' and '.'`},
		{"my rules", EINVALID, "malformed registry name"},
		{"a/b", EINVALID, "malformed registry name"},
		{"caf\u00e9", EINVALID, "malformed registry name"},
		{"..", EINVALID, "malformed registry name"},
		{".hidden", EINVALID, "malformed registry name"},
		{"a..b", EINVALID, "malformed registry name"},
		{"-x", EINVALID, "malformed registry name"},
	}
	for _, tt := range tests {
		checkErr(t, "ValidateRegistryName("+tt.in+")", ValidateRegistryName(tt.in), tt.want, tt.msg)
	}
}

func TestAssessmentState(t *testing.T) {
	cfg := DefaultConfig()
	tests := []struct {
		name string
		rule func() Rule
		at   time.Time
		want string
	}{
		{"active", func() Rule { return ruleWith("general", SeverityShould, 10, 0, t0) }, t0, "active"},
		{"inactive", func() Rule { return ruleWith("general", SeverityShould, 2, 0, t0) }, t0, "inactive"},
		{"provisional must", func() Rule { return ruleWith("general", SeverityMust, 3, 0, t0) }, t0, "provisional"},
		{"dormant", func() Rule { return ruleWith("general", SeverityShould, 10, 0, t0) }, t0.AddDate(3, 0, 0), "dormant"},
		{"stale-weak", func() Rule { return ruleWith("general", SeverityShould, 2, 0, t0) }, t0.AddDate(1, 1, 0), "stale_weak"},
		{"candidate", func() Rule { r := ruleWith("general", SeverityShould, 10, 0, t0); r.Status = StatusCandidate; return r }, t0, "candidate"},
		{"archived", func() Rule { r := ruleWith("general", SeverityShould, 10, 0, t0); r.Status = StatusArchived; return r }, t0, "archived"},
	}
	for _, tt := range tests {
		r := tt.rule()
		if got := Assess(&r, cfg, tt.at).State(&r); got != tt.want {
			t.Errorf("%s: state %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestProposedRuleID(t *testing.T) {
	tests := []struct{ text, prefix string }{
		{"Use pnpm, never npm!", "proposed.use-pnpm-never-npm-"},
		{"one two three four five six seven", "proposed.one-two-three-four-five-six-"},
		{"¿¡!?", "proposed.rule-"},
		{strings.Repeat("abcdefghij", 10), "proposed." + strings.Repeat("abcdefghij", 6) + "-"},
	}
	for _, tt := range tests {
		id := ProposedRuleID(tt.text)
		if !strings.HasPrefix(id, tt.prefix) || len(id) != len(tt.prefix)+6 {
			t.Errorf("ProposedRuleID(%q) = %q, want %s + 6 hex digits", tt.text, id, tt.prefix)
		}
		if err := ValidateRuleID(id); err != nil {
			t.Errorf("ProposedRuleID(%q) = %q: %v", tt.text, id, err)
		}
		if ProposedRuleID("  "+tt.text+"\n") != id {
			t.Errorf("ProposedRuleID(%q) depends on surrounding white space", tt.text)
		}
	}
}
