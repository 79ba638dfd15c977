package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/registry"
)

func TestPreToolUseEnforcesMustRules(t *testing.T) {
	dir := projectDir(t)
	reg := registry.Default()
	enforced := memory.Enforcements(engine.Snapshot{Rules: []engine.SnapshotRule{
		{RuleID: "tool.no-sed-for-file-editing", Severity: engine.SeverityMust, Text: "Never use sed to edit files"},
		{RuleID: "tool.no-force-push", Severity: engine.SeverityMust, Text: "Never force-push", Provisional: true},
		{RuleID: "tool.pnpm-not-npm", Severity: engine.SeverityMust, Text: "pnpm"}, // no check
	}}, reg)
	if len(enforced) != 2 {
		t.Fatalf("enforcements %+v", enforced)
	}
	common := `"session_id":"abc123","cwd":"` + filepath.Join(dir, "sub") + `","hook_event_name":"PreToolUse","tool_use_id":"toolu_01"`
	for _, tc := range []struct {
		name, tool, input string
		enforced          []memory.Enforcement
		want              string
	}{
		{"sed -i denied", "Bash", `{"command":"sed -i 's/a/b/' main.go","description":"edit"}`, enforced,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"LexSona rule [tool.no-sed-for-file-editing] (must): Never use sed to edit files. This Bash call breaks it (its command matches the rule's check): do it another way, or ask the user."}}` + "\n"},
		{"force push of a provisional rule denied", "Bash", `{"command":"git push --force"}`, enforced, "deny"},
		{"other command", "Bash", `{"command":"go test ./..."}`, enforced, ""},
		{"other tool", "Edit", `{"file_path":"main.go","old_string":"sed -i","new_string":"x"}`, enforced, ""},
		{"rule not in force", "Bash", `{"command":"sed -i s/a/b/ f"}`, nil, ""},
		{"no input", "Bash", ``, enforced, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := `{` + common + `,"tool_name":"` + tc.tool + `"`
			if tc.input != "" {
				ev += `,"tool_input":` + tc.input
			}
			e, err := ReadEvent(strings.NewReader(ev + `}`))
			if err != nil {
				t.Fatal(err)
			}
			b := &fakeUseCases{enforced: tc.enforced}
			out, err := HandleClaudeCode(context.Background(), e, b, detected, Options{})
			if err != nil {
				t.Fatal(err)
			}
			data, _ := EncodeOutput(out)
			got := string(data)
			if tc.want == "deny" {
				if out == nil || out.HookSpecificOutput.PermissionDecision != "deny" {
					t.Errorf("not denied: %s", got)
				}
				return
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("output (-want +got):\n%s", d)
			}
		})
	}
	bad, _ := ReadEvent(strings.NewReader(`{` + common + `,"tool_name":"Bash","tool_input":"sed -i"}`))
	if _, err := HandleClaudeCode(context.Background(), bad, &fakeUseCases{enforced: enforced}, detected, Options{}); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("tool_input not an object: %v", err)
	}
}

func TestPreToolUseRecordsViolations(t *testing.T) {
	dir := projectDir(t)
	enforced := memory.Enforcements(engine.Snapshot{Rules: []engine.SnapshotRule{
		{RuleID: "tool.no-sed-for-file-editing", Severity: engine.SeverityMust, Text: "Never use sed to edit files"},
	}}, registry.Default())
	event := func(command string) Event {
		t.Helper()
		in, _ := json.Marshal(map[string]string{"command": command})
		e, err := ReadEvent(strings.NewReader(`{"session_id":"abc123","cwd":"` + filepath.Join(dir, "sub") +
			`","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_01","tool_input":` + string(in) + `}`))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	b := &fakeUseCases{enforced: enforced}
	for _, cmd := range []string{"go test ./...", "sed -i 's/a/b/' main.go"} {
		if _, err := HandleClaudeCode(context.Background(), event(cmd), b, detected, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	want := []memory.Violation{{
		RuleID: "tool.no-sed-for-file-editing", Tool: "Bash", Field: "command", Pattern: enforced[0].Checks[0].Pattern.String(),
		Input: "sed -i 's/a/b/' main.go", FrameID: "abc123",
		Scope: engine.Scope{Project: "billing-api", AgentFamily: "claude", ContextTags: []string{"go", "javascript"}},
	}}
	if d := cmp.Diff(want, b.violations); d != "" {
		t.Errorf("violations (-want +got):\n%s", d)
	}

	// A failed write keeps the deny and says what was lost.
	failing := &fakeUseCases{enforced: enforced, violErr: engine.Errorf(engine.EUNAVAILABLE, "database is locked")}
	out, err := HandleClaudeCode(context.Background(), event("sed -i x f"), failing, detected, Options{})
	if out == nil || out.HookSpecificOutput.PermissionDecision != "deny" {
		t.Errorf("deny lost when the write failed: %+v", out)
	}
	if !errors.Is(err, ErrNotRecorded) || engine.ErrorCode(err) != engine.EUNAVAILABLE {
		t.Errorf("error %v: want ErrNotRecorded wrapping the store's", err)
	}
}
