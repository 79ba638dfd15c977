package memory

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/lexsona/lexsona/engine"
)

// ghToken is shaped like a GitHub classic token (built in two parts so that
// no scanner takes this file for a leak).
var ghToken = "gh" + "p_R7xK2mQ9vL4pT8wZ3nB6cY1hJ5dF0gS2aE4u"

func TestRecordViolationKeepsConfidence(t *testing.T) {
	svc, db := MustDefaultService(t, Options{Now: func() time.Time { return t0.Add(time.Hour) }})
	const id = "tool.no-sed-for-file-editing"
	for i := 0; i < 3; i++ {
		MustRecord(t, svc, engine.Correction{RuleID: id, UserText: "stop using sed -i to edit files"})
	}
	before := mustRule(t, db, id)
	scope := engine.Scope{Project: "billing-api", AgentFamily: "claude", ContextTags: []string{"go"}}
	long := "sed -i 's/a/b/' main.go && GITHUB_TOKEN=" + ghToken + " make \x1b[31mdeploy\r" + strings.Repeat("é", 3000)
	res, err := svc.RecordViolation(t.Context(), Violation{
		RuleID: id, Tool: "Bash", Field: "command", Pattern: `\bsed\s+-i\b`, Input: long,
		FrameID: "session-1", Scope: scope, At: t0.Add(30 * time.Minute),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Redacted != 1 {
		t.Errorf("redacted %d secrets, want 1", res.Redacted)
	}
	after := mustRule(t, db, id)
	if d := cmp.Diff(before, after); d != "" {
		t.Errorf("the violation changed the rule (-before +after):\n%s", d)
	}
	h, err := svc.History(t.Context(), id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	last := h.Events[len(h.Events)-1]
	if diff := cmp.Diff(res.Event, last); diff != "" {
		t.Errorf("returned event differs from the stored one (-returned +stored):\n%s", diff)
	}
	want := engine.Event{
		EventID: last.EventID, RuleID: id, EventType: engine.EventViolation, FrameID: "session-1",
		Scope: scope.Normalize(), Decision: "deny", Detail: `denied a Bash call: its command matches the check \bsed\s+-i\b`,
		Alpha: before.Alpha, Beta: before.Beta, At: t0.Add(30 * time.Minute), AgentOutput: last.AgentOutput,
	}
	if d := cmp.Diff(want, last); d != "" {
		t.Errorf("stored event (-want +got):\n%s", d)
	}
	out := last.AgentOutput
	for _, c := range []struct {
		what string
		ok   bool
	}{
		{"starts with the command", strings.HasPrefix(out, "sed -i 's/a/b/' main.go && GITHUB_TOKEN=[REDACTED:github-pat] make \uFFFD[31mdeploy\uFFFD")},
		{"holds no secret", !strings.Contains(out, ghToken)},
		{"cut to the bound", len(out) <= MaxViolationInput && len(out) > MaxViolationInput-8},
		{"ends with an ellipsis", strings.HasSuffix(out, "é…")},
		{"stays storable", engine.CheckChars("agent output", out, true) == nil},
	} {
		if !c.ok {
			t.Errorf("agent output %s: %q", c.what, out)
		}
	}
	if before.Alpha != last.Alpha || before.Beta != last.Beta {
		t.Errorf("event alpha/beta %g/%g, rule %g/%g", last.Alpha, last.Beta, before.Alpha, before.Beta)
	}
}

func TestRecordViolationRefusesBadInput(t *testing.T) {
	svc, _ := MustDefaultService(t, Options{Now: func() time.Time { return t0 }})
	ok := Violation{RuleID: "tool.no-sed-for-file-editing", Tool: "Bash", Field: "command", Input: "sed -i x f", FrameID: "s"}
	for _, tc := range []struct {
		name string
		edit func(v *Violation)
		code string
	}{
		{"valid", func(v *Violation) {}, ""},
		{"unknown rule", func(v *Violation) { v.RuleID = "tool.no-such-rule" }, engine.ENOTFOUND},
		{"malformed rule id", func(v *Violation) { v.RuleID = "Not An Id" }, engine.EINVALID},
		{"no tool", func(v *Violation) { v.Tool = " " }, engine.EINVALID},
		{"two-line tool", func(v *Violation) { v.Tool = "Bash\nWrite" }, engine.EINVALID},
		{"long frame id", func(v *Violation) { v.FrameID = strings.Repeat("f", 257) }, engine.EINVALID},
		{"bad scope", func(v *Violation) { v.Scope = engine.Scope{Project: "a b"} }, engine.EINVALID},
		{"in the future", func(v *Violation) { v.At = t0.Add(time.Hour) }, engine.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := ok
			tc.edit(&v)
			_, err := svc.RecordViolation(t.Context(), v)
			MustCode(t, err, tc.code)
		})
	}
}
