package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/hooks"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/server/servertest"
)

// hookProject is a project folder named billing-api holding a go.mod.
func hookProject(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "billing-api")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	return dir
}

// postHook posts body to the hook route of a real HTTP server, with query
// ("" or "?…") after the route.
func postHook(t *testing.T, base, query, key, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+hooks.HTTPRoute+query, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", hooks.HTTPRoute, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(data)
}

func hookEvent(t *testing.T, cwd string, fields map[string]string) string {
	ev := map[string]string{"session_id": "sess-42", "transcript_path": "/tmp/t.jsonl", "cwd": cwd, "permission_mode": "default"}
	for k, v := range fields {
		ev[k] = v
	}
	b, _ := json.Marshal(ev)
	return string(b)
}

func TestClaudeCodeHookRoute(t *testing.T) {
	env := newTestEnv(t, nil)
	ts := httptest.NewServer(env.h)
	defer ts.Close()
	dir := hookProject(t)
	// The route reads no file of dir: the scope is the folder's name.
	scope, err := hooks.CwdScope(dir, hooks.AgentClaude, engine.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := memory.Snapshot(context.Background(), env.db, engine.SnapshotRequest{Scope: scope, Now: testNow})
	if err != nil || !strings.Contains(snap.Prompt, "billing-api") {
		t.Fatalf("persona of %v: %v\n%s", scope, err, snap.Prompt)
	}
	// No rule is in force there: SessionStart says only what the agent
	// should report.
	personaJSON := mustJSONNoEscape(t, hooks.AgentInstruction+"\n")
	for _, tc := range []struct {
		name   string
		fields map[string]string
		status int
		want   string // exact body
	}{
		{"session start", map[string]string{"hook_event_name": "SessionStart", "source": "startup"}, 200,
			`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":` + string(personaJSON) + "}}\n"},
		{"explicit correction", map[string]string{"hook_event_name": "UserPromptSubmit", "prompt": "CORRECT[tool.no-sed-for-file-editing]: you used sed -i again, use the edit tool"}, 200,
			`{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"LexSona recorded this prompt as a reinforcement of rule [tool.no-sed-for-file-editing] \"Never use sed, awk or perl one-liners to edit files; use the editor's replace tool instead\" (explicit). Follow that rule from now on."}}` + "\n"},
		{"ordinary prompt", map[string]string{"hook_event_name": "UserPromptSubmit", "prompt": "add a health check endpoint to the billing service"}, 204, ""},
		{"other event", map[string]string{"hook_event_name": "PreToolUse", "tool_name": "Bash"}, 204, ""},
		{"no event name", map[string]string{"prompt": "x"}, 400, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, ct, body := postHook(t, ts.URL, "", "", hookEvent(t, dir, tc.fields))
			if status != tc.status {
				t.Fatalf("status %d, want %d; body %s", status, tc.status, body)
			}
			if status >= 400 {
				if !strings.Contains(body, `"code":"invalid"`) {
					t.Errorf("error body %s", body)
				}
				return
			}
			if body != tc.want {
				t.Errorf("body\n got %q\nwant %q", body, tc.want)
			}
			if body != "" && !strings.HasPrefix(ct, "application/json") {
				t.Errorf("content type %q", ct)
			}
			if body != "" {
				checkDoc(t, http.MethodPost, hooks.HTTPRoute, response{status: status, header: http.Header{"Content-Type": {ct}}, body: []byte(body)})
			}
		})
	}
	// The explicit correction, and only it, was recorded with the session as frame.
	events, err := env.db.History(context.Background(), "tool.no-sed-for-file-editing", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	frames := 0
	for _, ev := range events {
		if ev.FrameID == "sess-42" {
			frames++
		}
	}
	if frames != 1 {
		t.Errorf("%d events with frame sess-42, want 1: %+v", frames, events)
	}
}

func TestClaudeCodeHookRouteAuth(t *testing.T) {
	keys, err := ParseAPIKeys("read:r-0123456789abcdef,write:w-0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	env, _ := newFakeEnv(t, func(c *Config) { c.APIKeys = keys }, &servertest.Memory{}, nil)
	ts := httptest.NewServer(env.h)
	defer ts.Close()
	body := hookEvent(t, hookProject(t), map[string]string{"hook_event_name": "SessionStart", "source": "startup"})
	for _, tc := range []struct {
		key    string
		status int
	}{{"", 401}, {"r-0123456789abcdef", 403}, {"w-0123456789abcdef", 200}} {
		if status, _, b := postHook(t, ts.URL, "", tc.key, body); status != tc.status {
			t.Errorf("key %q: status %d, want %d; body %s", tc.key, status, tc.status, b)
		}
	}
}

func TestClaudeCodeHookRouteDeniesMustRuleCheck(t *testing.T) {
	env := newTestEnv(t, nil)
	ts := httptest.NewServer(env.h)
	defer ts.Close()
	dir := hookProject(t)
	sed := hookEvent(t, dir, map[string]string{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "toolu_1"})
	sed = strings.TrimSuffix(sed, "}") + `,"tool_input":{"command":"sed -i 's/a/b/' main.go"}}`
	// Not in force yet: no decision.
	if status, _, body := postHook(t, ts.URL, "", "", sed); status != 204 || body != "" {
		t.Fatalf("before: %d %q", status, body)
	}
	for i := range 3 {
		prompt := hookEvent(t, dir, map[string]string{"hook_event_name": "UserPromptSubmit", "prompt": fmt.Sprintf("CORRECT[tool.no-sed-for-file-editing]: sed -i again (%d), use the edit tool", i)})
		if status, _, body := postHook(t, ts.URL, "", "", prompt); status != 200 || body == "" {
			t.Fatalf("correction %d: %d %q", i, status, body)
		}
	}
	status, ct, body := postHook(t, ts.URL, "", "", sed)
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"LexSona rule [tool.no-sed-for-file-editing] (must): Never use sed, awk or perl one-liners to edit files; use the editor's replace tool instead. This Bash call breaks it (its command matches the rule's check): do it another way, or ask the user."}}` + "\n"
	if status != 200 || body != want {
		t.Fatalf("after: %d\n got %q\nwant %q", status, body, want)
	}
	checkDoc(t, http.MethodPost, hooks.HTTPRoute, response{status: status, header: http.Header{"Content-Type": {ct}}, body: []byte(body)})
	// The deny is on the rule's receipts: a violation with the session as
	// frame and the denied command, confidence untouched.
	before, err := env.db.GetRule(context.Background(), "tool.no-sed-for-file-editing")
	if err != nil {
		t.Fatal(err)
	}
	var violation *engine.Event
	for deadline := time.Now().Add(10 * time.Second); violation == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		events, err := env.db.History(context.Background(), "tool.no-sed-for-file-editing", 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		for i := range events {
			if events[i].EventType == engine.EventViolation {
				violation = &events[i]
			}
		}
	}
	if violation == nil {
		t.Fatal("no violation event on the rule's receipts after the deny")
	}
	if violation.FrameID != "sess-42" || !strings.Contains(violation.AgentOutput, "sed -i") {
		t.Errorf("violation event %+v: want frame sess-42 and the denied command", *violation)
	}
	if after, err := env.db.GetRule(context.Background(), "tool.no-sed-for-file-editing"); err != nil || after.Alpha != before.Alpha || after.Beta != before.Beta {
		t.Errorf("confidence moved by a violation: %v/%v -> %v/%v (%v)", before.Alpha, before.Beta, after.Alpha, after.Beta, err)
	}
	other := strings.Replace(sed, "sed -i 's/a/b/' main.go", "go vet ./...", 1)
	if status, _, body := postHook(t, ts.URL, "", "", other); status != 204 || body != "" {
		t.Errorf("other command: %d %q", status, body)
	}
}

// mustJSONNoEscape is v as JSON with < > & left as they are, as the hook
// answers.
func mustJSONNoEscape(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(b.Bytes())
}
