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
}
