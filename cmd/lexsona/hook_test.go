package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestHookFailsOpen(t *testing.T) {
	c := newCLI(t)
	for _, in := range []string{"", "not json", `{"hook_event_name":"UserPromptSubmit","prompt":"CORRECT[no.such-rule]: x","cwd":"/"}`} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"--db", c.db, "hook", "claude-code"}, strings.NewReader(in), &out, &errb)
		if code != 0 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%q: exit %d stdout %q stderr %q", in, code, out.String(), errb.String())
		}
	}
}

func TestHookWrongInvocationFailsOpen(t *testing.T) {
	c := newCLI(t)
	for _, args := range [][]string{{"hook"}, {"hook", "cursor"}, {"hook", "claude-code", "--bogus"}} {
		var out, errb bytes.Buffer
		in := `{"hook_event_name":"Stop","session_id":"s"}`
		code := run(context.Background(), append([]string{"--db", c.db}, args...), strings.NewReader(in), &out, &errb)
		if code != 0 || out.Len() != 0 {
			t.Errorf("%v: exit %d stdout %q stderr %q", args, code, out.String(), errb.String())
		}
	}
}

func TestHookSessionStartAndExplicitPrompt(t *testing.T) {
	c := newCLI(t)
	c.mustAddRule("tool.pnpm-not-npm", "tool_preference", "must")
	dir := filepath.Join(t.TempDir(), "shop")
	ev := func(name, extra string) string {
		return `{"session_id":"s-1","cwd":"` + dir + `","hook_event_name":"` + name + `"` + extra + `}`
	}
	var out, errb bytes.Buffer
	run(context.Background(), []string{"--db", c.db, "hook", "claude-code"}, strings.NewReader(ev("SessionStart", `,"source":"startup"`)), &out, &errb)
	var o struct {
		H struct{ HookEventName, AdditionalContext string } `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out.Bytes(), &o); err != nil || o.H.HookEventName != "SessionStart" ||
		!strings.HasPrefix(o.H.AdditionalContext, "## LexSona Behavioral Rules (scope: */shop/claude)") {
		t.Fatalf("SessionStart: %v %q %s", err, out.String(), errb.String())
	}
	out.Reset()
	run(context.Background(), []string{"--db", c.db, "hook", "claude-code"}, strings.NewReader(ev("UserPromptSubmit", `,"prompt":"CORRECT[tool.pnpm-not-npm]: pnpm please"`)), &out, &errb)
	if !strings.Contains(out.String(), "reinforcement of rule [tool.pnpm-not-npm] (explicit") {
		t.Fatalf("explicit prompt: %q %s", out.String(), errb.String())
	}
	m := c.mustJSON("why", "tool.pnpm-not-npm")
	h := m["history"].([]any)
	if last := h[len(h)-1].(map[string]any); last["frame_id"] != "s-1" || last["event_type"] != "reinforcement" {
		t.Errorf("last event %v", last)
	}
}

func TestHooksInstallUninstallCLI(t *testing.T) {
	c := newCLI(t)
	dir := t.TempDir()
	t.Setenv("PATH", t.TempDir()) // no lexsona on PATH: the bare command, with a warning
	t.Setenv("LEXSONA_ADDR", "127.0.0.1:1")
	for i, want := range []bool{true, false} {
		if m := c.mustJSON("hooks", "install", "claude-code", "--dir", dir); m["changed"] != want || m["http"] != false {
			t.Errorf("install #%d: %v", i+1, m)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, ".claude", "settings.json"))
	if strings.Count(string(data), `"lexsona hook claude-code"`) != 3 {
		t.Errorf("settings:\n%s", data)
	}
	if m := c.mustJSON("hooks", "uninstall", "claude-code", "--dir", dir); m["changed"] != true {
		t.Errorf("uninstall: %v", m)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".claude", "settings.json")); string(data) != "{}\n" {
		t.Errorf("after uninstall: %q", data)
	}
	if code, _, _ := c.run("hooks", "install", "claude-code", "--dir", dir, "--user"); code != 2 {
		t.Errorf("--dir with --user: exit %d", code)
	}
	if code, _, _ := c.run("hooks", "install", "cursor"); code != 2 {
		t.Errorf("unknown agent: exit %d", code)
	}
}

func TestHooksInstallHTTPCLI(t *testing.T) {
	c := newCLI(t)
	dir := t.TempDir()
	url := "http://127.0.0.1:8080/v1/hooks/claude-code"
	for i, want := range []bool{true, false} {
		if m := c.mustJSON("hooks", "install", "claude-code", "--dir", dir, "--http", url); m["changed"] != want {
			t.Errorf("install #%d: %v", i+1, m)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, ".claude", "settings.json"))
	if strings.Count(string(data), `"type": "http"`) != 3 || strings.Contains(string(data), "lexsona hook") {
		t.Errorf("settings:\n%s", data)
	}
	if m := c.mustJSON("hooks", "uninstall", "claude-code", "--dir", dir); m["changed"] != false {
		t.Errorf("uninstall of command hooks touched HTTP ones: %v", m)
	}
	if m := c.mustJSON("hooks", "uninstall", "claude-code", "--dir", dir, "--http", url); m["changed"] != true {
		t.Errorf("uninstall: %v", m)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".claude", "settings.json")); string(data) != "{}\n" {
		t.Errorf("after uninstall: %q", data)
	}
	for _, args := range [][]string{{"--http", "localhost:8080"}, {"--http", url, "--command", "x"}} {
		if code, _, _ := c.run(append([]string{"hooks", "install", "claude-code", "--dir", dir}, args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestHookPreToolUseDeniesMustRuleCheck(t *testing.T) {
	c := newCLI(t)
	dir := filepath.Join(t.TempDir(), "shop")
	hook := func(ev string) (string, string) {
		var out, errb bytes.Buffer
		run(context.Background(), []string{"--db", c.db, "hook", "claude-code"}, strings.NewReader(`{"session_id":"s-1","cwd":"`+dir+`",`+ev+`}`), &out, &errb)
		return out.String(), errb.String()
	}
	sed := `"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"sed -i s/a/b/ main.go"}`
	if out, errs := hook(sed); out != "" {
		t.Fatalf("before the rule is in force: %q %s", out, errs)
	}
	for i := range 3 {
		if out, errs := hook(`"hook_event_name":"UserPromptSubmit","prompt":"CORRECT[tool.no-sed-for-file-editing]: no sed -i, take ` + string(rune('1'+i)) + `"`); !strings.Contains(out, "reinforcement") {
			t.Fatalf("correction %d: %q %s", i, out, errs)
		}
	}
	out, errs := hook(sed)
	var o struct {
		H struct{ HookEventName, PermissionDecision, PermissionDecisionReason string } `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil || o.H.PermissionDecision != "deny" ||
		!strings.HasPrefix(o.H.PermissionDecisionReason, "LexSona rule [tool.no-sed-for-file-editing] (must): Never use sed") {
		t.Fatalf("after: %v %q %s", err, out, errs)
	}
	if errs != "" {
		t.Errorf("stderr %q", errs)
	}
	// The denied call is on the rule's receipts, its evidence unchanged.
	var w struct {
		Rule    struct{ Alpha, Beta, Confidence float64 }
		History []struct {
			EventType   string  `json:"event_type"`
			FrameID     string  `json:"frame_id"`
			AgentOutput string  `json:"agent_output"`
			Decision    string  `json:"decision"`
			Detail      string  `json:"detail"`
			Alpha       float64 `json:"alpha"`
			Beta        float64 `json:"beta"`
		}
	}
	_, whyOut, _ := c.run("why", "--json", "tool.no-sed-for-file-editing")
	if err := json.Unmarshal([]byte(whyOut), &w); err != nil || len(w.History) < 2 {
		t.Fatalf("why: %v %s", err, whyOut)
	}
	last, prev := w.History[len(w.History)-1], w.History[len(w.History)-2]
	if last.EventType != "violation" || last.FrameID != "s-1" || last.AgentOutput != "sed -i s/a/b/ main.go" ||
		last.Decision != "deny" || !strings.HasPrefix(last.Detail, "denied a Bash call: its command matches") {
		t.Errorf("violation event %+v", last)
	}
	if prev.EventType != "reinforcement" || last.Alpha != prev.Alpha || last.Beta != prev.Beta || w.Rule.Alpha != prev.Alpha || w.Rule.Beta != prev.Beta {
		t.Errorf("the violation changed the evidence: before %+v, violation %+v, rule %+v", prev, last, w.Rule)
	}
	// A violation that cannot be stored (a session id the store refuses)
	// leaves the deny as it was, with one line on stderr.
	var outb, errb bytes.Buffer
	run(context.Background(), []string{"--db", c.db, "hook", "claude-code"},
		strings.NewReader(`{"session_id":"s\u001b[2J","cwd":"`+dir+`",`+sed+`}`), &outb, &errb)
	if outb.String() != out || strings.Count(errb.String(), "\n") != 1 ||
		!strings.Contains(errb.String(), "not recorded on the rule's receipts: frame id contains a control character") {
		t.Errorf("unrecorded deny: stdout %q stderr %q", outb.String(), errb.String())
	}
	if n := c.eventCount("tool.no-sed-for-file-editing"); n != len(w.History) {
		t.Errorf("%d events after the refused violation, want %d", n, len(w.History))
	}
	_, text, _ := c.run("why", "tool.no-sed-for-file-editing")
	if !strings.Contains(text, "violation") || !strings.Contains(text, `"sed -i`) {
		t.Errorf("why text lacks the violation:\n%s", text)
	}
}

// An event whose input never ends (a stdin held open), or whose process is
// stopped by SIGTERM, fails open: one line on stderr, nothing on stdout,
// exit 0, and the store left for the process's exit.
func TestHookDeadlineAndSignalFailOpen(t *testing.T) {
	c := newCLI(t)
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want string
	}{
		{"deadline", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, "no answer within 2s"},
		{"signal", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // what SIGTERM does to the process's context
			return ctx, cancel
		}, "stopped by a signal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pw.Close()
			ctx, cancel := tc.ctx()
			defer cancel()
			var out, errb bytes.Buffer
			code := run(ctx, []string{"--db", c.db, "hook", "claude-code"}, pr, &out, &errb)
			if code != 0 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d stdout %q stderr %q; want one line saying %q", code, out.String(), errb.String(), tc.want)
			}
		})
	}
}

// A project whose .lexsona.yaml is a FIFO or a link to /dev/zero fails the
// hook open at once: the file is never read or waited on.
func TestHookRefusesHostileProjectFiles(t *testing.T) {
	c := newCLI(t)
	for name, mk := range map[string]func(string) error{
		"fifo":     func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"dev zero": func(p string) error { return os.Symlink("/dev/zero", p) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := mk(filepath.Join(dir, ".lexsona.yaml")); err != nil {
				t.Fatal(err)
			}
			in := `{"session_id":"s","cwd":"` + dir + `","hook_event_name":"SessionStart"}`
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{"--db", c.db, "hook", "claude-code"}, strings.NewReader(in), &out, &errb)
			if code != 0 || out.Len() != 0 || !strings.Contains(errb.String(), "not a regular file") {
				t.Errorf("exit %d stdout %q stderr %q", code, out.String(), errb.String())
			}
		})
	}
}

// With a service answering at --server, `hooks install` writes HTTP hooks
// whose URL names the project's scope, and says why; without one it writes
// command hooks by the absolute path of lexsona found on PATH.
func TestHooksInstallChoosesWhatReachesLexSona(t *testing.T) {
	c := newCLI(t)
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			w.WriteHeader(http.StatusOK)
			return
		}
		http.NotFound(w, r)
	}))
	defer svc.Close()
	addr := strings.TrimPrefix(svc.URL, "http://")
	dir := filepath.Join(t.TempDir(), "Shop App")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	m := c.mustJSON("hooks", "install", "claude-code", "--dir", dir, "--server", addr)
	want := svc.URL + "/v1/hooks/claude-code?context_tags=go&project=shop-app"
	if m["http"] != true || m["target"] != want || !strings.Contains(m["why"].(string), "answers at") {
		t.Fatalf("with a service: %v; want HTTP hooks to %s", m, want)
	}

	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "lexsona"), []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", bin)
	other := t.TempDir()
	m = c.mustJSON("hooks", "install", "claude-code", "--dir", other, "--server", "127.0.0.1:1")
	if m["http"] != false || m["target"] != filepath.Join(bin, "lexsona")+" hook claude-code" || !strings.Contains(m["why"].(string), "no LexSona service answers") {
		t.Fatalf("without a service: %v", m)
	}
}
