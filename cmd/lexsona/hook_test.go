package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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
	for i, want := range []bool{true, false} {
		if m := c.mustJSON("hooks", "install", "claude-code", "--dir", dir); m["changed"] != want {
			t.Errorf("install #%d: %v", i+1, m)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, ".claude", "settings.json"))
	if strings.Count(string(data), `"lexsona hook claude-code"`) != 2 {
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
