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
	for _, in := range []string{"", "not json"} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"--db", c.db, "hook", "claude-code"}, strings.NewReader(in), &out, &errb)
		if code != 0 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%q: exit %d stdout %q stderr %q", in, code, out.String(), errb.String())
		}
	}
	// A prompt naming no rule is spooled, delivered and ignored: nothing
	// said, nothing left waiting, nothing refused.
	var out, errb bytes.Buffer
	in := `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"CORRECT[no.such-rule]: x","cwd":"/"}`
	if code := run(context.Background(), []string{"--db", c.db, "hook", "claude-code"}, strings.NewReader(in), &out, &errb); code != 0 || out.Len() != 0 || errb.Len() != 0 {
		t.Errorf("unknown rule: exit %d stdout %q stderr %q", code, out.String(), errb.String())
	}
	if st := c.mustJSON("spool", "status"); st["waiting"] != 0.0 || st["failed"] != 0.0 {
		t.Errorf("spool after an unknown rule: %v", st)
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

// A rule the user adds is in the next SessionStart's persona, stated; a
// CORRECT[rule_id]: prompt is spooled, answers nothing (the hook runs
// async) and is recorded once, with the session as frame, even when the
// same event is delivered again.
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
		!strings.HasPrefix(o.H.AdditionalContext, "## LexSona Behavioral Rules (scope: */shop/claude)") ||
		!strings.Contains(o.H.AdditionalContext, "[tool.pnpm-not-npm] Text of tool.pnpm-not-npm (stated by the user") ||
		!strings.Contains(o.H.AdditionalContext, "record_correction") {
		t.Fatalf("SessionStart: %v %q %s", err, out.String(), errb.String())
	}
	before := c.eventCount("tool.pnpm-not-npm")
	for range 2 {
		out.Reset()
		run(context.Background(), []string{"--db", c.db, "hook", "claude-code"}, strings.NewReader(ev("UserPromptSubmit", `,"prompt":"CORRECT[tool.pnpm-not-npm]: pnpm please"`)), &out, &errb)
		if out.Len() != 0 || errb.Len() != 0 {
			t.Fatalf("explicit prompt: stdout %q stderr %q", out.String(), errb.String())
		}
	}
	if n := c.eventCount("tool.pnpm-not-npm"); n != before+1 {
		t.Errorf("%d events after the same prompt delivered twice, want %d", n, before+1)
	}
	m := c.mustJSON("why", "tool.pnpm-not-npm")
	h := m["history"].([]any)
	if last := h[len(h)-1].(map[string]any); last["frame_id"] != "s-1" || last["event_type"] != "reinforcement" {
		t.Errorf("last event %v", last)
	}
}

// With no database to deliver to, a prompt waits on the spool, and the next
// drain delivers it.
func TestHookSpoolsWhatCannotBeDelivered(t *testing.T) {
	c := newCLI(t)
	c.mustAddRule("tool.pnpm-not-npm", "tool_preference", "must")
	ro := filepath.Join(t.TempDir(), "ro")
	os.MkdirAll(ro, 0o755)
	in := `{"session_id":"s-2","cwd":"/","hook_event_name":"UserPromptSubmit","prompt":"CORRECT[tool.pnpm-not-npm]: pnpm, not npm"}`
	// The database is moved away while the prompt is captured: the spool
	// beside it keeps the prompt.
	moved := c.db + ".away"
	if err := os.Rename(c.db, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(c.db, 0o755); err != nil { // a folder where the database was: opening it fails
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	run(context.Background(), []string{"--db", c.db, "hook", "claude-code"}, strings.NewReader(in), &out, &errb)
	if out.Len() != 0 {
		t.Errorf("stdout %q", out.String())
	}
	if st := c.mustJSON("spool", "status"); st["waiting"] != 1.0 || st["last_error"] == "" {
		t.Fatalf("spool while the database is away: %v", st)
	}
	os.Remove(c.db)
	if err := os.Rename(moved, c.db); err != nil {
		t.Fatal(err)
	}
	before := c.eventCount("tool.pnpm-not-npm")
	if code, out, errs := c.run("spool", "drain"); code != 0 || !strings.Contains(out, "delivered 1") {
		t.Fatalf("drain: exit %d %q %s", code, out, errs)
	}
	if n := c.eventCount("tool.pnpm-not-npm"); n != before+1 {
		t.Errorf("%d events after the drain, want %d", n, before+1)
	}
	if st := c.mustJSON("spool", "status"); st["waiting"] != 0.0 || st["last_error"] != nil {
		t.Errorf("spool after the drain: %v", st)
	}
}

func TestHooksInstallUninstallCLI(t *testing.T) {
	c := newCLI(t)
	dir := t.TempDir()
	t.Setenv("PATH", t.TempDir()) // no lexsona on PATH: the bare command, with a warning
	t.Setenv("LEXSONA_ADDR", "127.0.0.1:1")
	shared := filepath.Join(dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(shared), 0o755)
	mine := []byte("{\n  \"hooks\": {\n    \"UserPromptSubmit\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"./mine.sh\"\n          }\n        ]\n      }\n    ]\n  }\n}\n")
	os.WriteFile(shared, mine, 0o644)
	for i, want := range []bool{true, false} {
		if m := c.mustJSON("hooks", "install", "claude-code", "--dir", dir); m["changed"] != want || m["http"] != false || m["matcher"] != "Bash" {
			t.Errorf("install #%d: %v", i+1, m)
		}
	}
	local := filepath.Join(dir, ".claude", "settings.local.json")
	data, _ := os.ReadFile(local)
	if strings.Count(string(data), `"lexsona hook claude-code"`) != 3 || strings.Contains(string(data), `"async"`) {
		t.Errorf("settings.local.json:\n%s", data)
	}
	if got, _ := os.ReadFile(shared); !bytes.Equal(got, mine) {
		t.Errorf("the shared settings changed:\n%s", got)
	}
	// The team file, then the local one again: one place at a time.
	if m := c.mustJSON("hooks", "install", "claude-code", "--dir", dir, "--shared"); m["changed"] != true || len(m["removed_from"].([]any)) != 1 {
		t.Errorf("install --shared: %v", m)
	}
	if _, err := os.Stat(local); !os.IsNotExist(err) {
		t.Errorf("local settings after --shared: %v, want the file gone (install made it)", err)
	}
	if m := c.mustJSON("hooks", "uninstall", "claude-code", "--dir", dir); len(m["removed_from"].([]any)) != 1 {
		t.Errorf("uninstall: %v", m)
	}
	if got, _ := os.ReadFile(shared); !bytes.Equal(got, mine) {
		t.Errorf("after uninstall the shared settings are not as they were:\n%s", got)
	}
	if code, _, _ := c.run("hooks", "install", "claude-code", "--dir", dir, "--user"); code != 2 {
		t.Errorf("--dir with --user: exit %d", code)
	}
	if code, _, _ := c.run("hooks", "install", "cursor"); code != 2 {
		t.Errorf("unknown agent: exit %d", code)
	}
}

// --http: SessionStart and UserPromptSubmit stay command hooks naming the
// service; PreToolUse posts to it with the project's scope.
func TestHooksInstallHTTPCLI(t *testing.T) {
	c := newCLI(t)
	dir := filepath.Join(t.TempDir(), "shop")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "package.json"), []byte("{}"), 0o644)
	url := "http://127.0.0.1:8080/v1/hooks/claude-code"
	for i, want := range []bool{true, false} {
		if m := c.mustJSON("hooks", "install", "claude-code", "--dir", dir, "--http", url); m["changed"] != want || m["server"] != "http://127.0.0.1:8080" {
			t.Errorf("install #%d: %v", i+1, m)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, ".claude", "settings.local.json"))
	if strings.Count(string(data), `"type": "http"`) != 1 || strings.Count(string(data), "--server http://127.0.0.1:8080") != 2 ||
		!strings.Contains(string(data), "/v1/hooks/claude-code?context_tags=javascript&project=shop") {
		t.Errorf("settings:\n%s", data)
	}
	if m := c.mustJSON("hooks", "uninstall", "claude-code", "--dir", dir); len(m["removed_from"].([]any)) != 1 {
		t.Errorf("uninstall: %v", m)
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude", "settings.local.json")); !os.IsNotExist(err) {
		t.Errorf("after uninstall: %v, want the file gone", err)
	}
	for _, args := range [][]string{{"--http", "localhost:8080"}, {"--http", url, "--command", "x"}, {"--http", url, "--shared"}} {
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
	// One explicit correction states the rule: it is enforced at once.
	if out, errs := hook(`"hook_event_name":"UserPromptSubmit","prompt":"CORRECT[tool.no-sed-for-file-editing]: no sed -i, ever"`); out != "" || errs != "" {
		t.Fatalf("correction: %q %s", out, errs)
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
	// A session id the store would refuse is stored as its hash: the deny
	// is as it was, and the violation is on the receipts.
	var outb, errb bytes.Buffer
	run(context.Background(), []string{"--db", c.db, "hook", "claude-code"},
		strings.NewReader(`{"session_id":"s\u001b[2J","cwd":"`+dir+`",`+sed+`}`), &outb, &errb)
	if outb.String() != out || errb.Len() != 0 {
		t.Errorf("deny with an odd session id: stdout %q stderr %q", outb.String(), errb.String())
	}
	if n := c.eventCount("tool.no-sed-for-file-editing"); n != len(w.History)+1 {
		t.Errorf("%d events after the second violation, want %d", n, len(w.History)+1)
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

// With a service answering at --server, `hooks install` makes the hooks use
// it (PreToolUse's URL names the project's scope) and says why; without one
// the command hooks run lexsona found on PATH by its absolute path.
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
	if m["http"] != true || m["server"] != svc.URL || !strings.Contains(m["why"].(string), "answers at") {
		t.Fatalf("with a service: %v; want the hooks to use %s", m, svc.URL)
	}
	data, _ := os.ReadFile(filepath.Join(dir, ".claude", "settings.local.json"))
	if !strings.Contains(string(data), svc.URL+"/v1/hooks/claude-code?context_tags=go&project=shop-app") {
		t.Errorf("the PreToolUse hook does not name the project's scope:\n%s", data)
	}

	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "lexsona"), []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", bin)
	other := t.TempDir()
	m = c.mustJSON("hooks", "install", "claude-code", "--dir", other, "--server", "127.0.0.1:1")
	if m["http"] != false || m["command"] != filepath.Join(bin, "lexsona")+" hook claude-code" || !strings.Contains(m["why"].(string), "no LexSona service answers") {
		t.Fatalf("without a service: %v", m)
	}
}
