package claudecli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The tests in this file pin how Claude Code runs hooks, with probe hooks of
// their own rather than LexSona's, where LexSona's hooks depend on it: which
// settings files it reads, matchers, the hook's environment, HTTP hooks,
// async hooks and blocking exit codes. A new Claude Code version that
// changes one of these fails here by name.

// echoScript is a session whose agent runs `echo hi` through Bash, then
// answers a text.
func echoScript(command string) []Turn {
	return []Turn{
		{ToolName: "Bash", ToolInput: map[string]any{"command": command, "description": "run it"}},
		{Text: "Done."},
	}
}

// TestHookSourcesMatchersAndEnv: hooks of the user's settings, the
// project's settings.json and its settings.local.json all run; a command in
// two of them runs once; PreToolUse matchers are regular expressions over
// the tool's name; a command hook runs in the project folder with
// CLAUDE_PROJECT_DIR set to it.
func TestHookSourcesMatchersAndEnv(t *testing.T) {
	sb := NewSandbox(t)
	p := NewProbes(t)
	dup := p.Command(t, "in-user-and-project", "")
	WriteSettings(t, filepath.Join(sb.Home, ".claude", "settings.json"), map[string][]Group{
		"SessionStart": {HookGroup("", CommandHook(p.Command(t, "user", "")), CommandHook(dup))},
	})
	WriteSettings(t, filepath.Join(sb.Project, ".claude", "settings.json"), map[string][]Group{
		"SessionStart": {HookGroup("", CommandHook(p.Command(t, "project", "")), CommandHook(dup))},
		"PreToolUse": {
			HookGroup("Bash|Edit|Write", CommandHook(p.Command(t, "match-alternation", ""))),
			HookGroup("Edit", CommandHook(p.Command(t, "match-edit", ""))),
			HookGroup("*", CommandHook(p.Command(t, "match-star", ""))),
			HookGroup("", CommandHook(p.Command(t, "match-none", ""))),
		},
	})
	WriteSettings(t, filepath.Join(sb.Project, ".claude", "settings.local.json"), map[string][]Group{
		"SessionStart": {HookGroup("", CommandHook(p.Command(t, "local", "")))},
	})
	s := NewStandIn(t, echoScript("echo hi")...)

	sess := sb.Claude(t, s, "say hi")
	if sess.Err != nil {
		t.Fatalf("claude -p: %v\nstderr: %s", sess.Err, sess.Stderr)
	}
	for name, want := range map[string]int{
		"user": 1, "project": 1, "local": 1, "in-user-and-project": 1,
		"match-alternation": 1, "match-edit": 0, "match-star": 1, "match-none": 1,
	} {
		if got := p.Count(t, name); got != want {
			t.Errorf("probe %s ran %d times, want %d", name, got, want)
		}
	}
	for _, r := range p.Runs(t) {
		if r.Pwd != sb.Project || r.ProjectDir != sb.Project {
			t.Errorf("probe %s ran in %q with CLAUDE_PROJECT_DIR=%q, want both %q", r.Name, r.Pwd, r.ProjectDir, sb.Project)
		}
	}
}

// TestHTTPHookEvents: an HTTP hook is posted UserPromptSubmit and PreToolUse
// events, and its additionalContext reaches the model, but Claude Code skips
// HTTP hooks on SessionStart (only command hooks can answer it).
func TestHTTPHookEvents(t *testing.T) {
	sb := NewSandbox(t)
	sb.Env = []string{"LEXSONA_API_KEY=probe-key"}
	h := NewHookServer(t, map[string]string{
		"UserPromptSubmit": `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"HTTP-PROMPT-CONTEXT"}}`,
	})
	hook := Hook{"type": "http", "url": h.URL, "timeout": 5,
		"headers": map[string]string{"Authorization": "Bearer $LEXSONA_API_KEY"}, "allowedEnvVars": []string{"LEXSONA_API_KEY"}}
	WriteSettings(t, filepath.Join(sb.Project, ".claude", "settings.json"), map[string][]Group{
		"SessionStart":     {HookGroup("", hook)},
		"UserPromptSubmit": {HookGroup("", hook)},
		"PreToolUse":       {HookGroup("", hook)},
	})
	s := NewStandIn(t, echoScript("echo hi")...)

	sess := sb.Claude(t, s, "say hi")
	if sess.Err != nil || len(sess.Main) != 2 {
		t.Fatalf("claude -p: %v, %d requests\nstderr: %s", sess.Err, len(sess.Main), sess.Stderr)
	}
	var events []string
	for _, p := range h.Posts() {
		events = append(events, p.Event)
		if p.Authorization != "Bearer probe-key" {
			t.Errorf("%s was posted with Authorization %q, want the variable filled in", p.Event, p.Authorization)
		}
	}
	if got := strings.Join(events, ","); got != "UserPromptSubmit,PreToolUse" {
		t.Errorf("the HTTP hook was posted %q, want UserPromptSubmit,PreToolUse", got)
	}
	if len(sess.DebugLines("HTTP hooks are not supported for SessionStart")) == 0 {
		t.Errorf("the debug log does not say the SessionStart HTTP hook was skipped")
	}
	if len(requestLines(sess.Main[0], "UserPromptSubmit hook additional context: HTTP-PROMPT-CONTEXT")) == 0 {
		t.Errorf("the HTTP hook's additionalContext is not in the first request")
	}
}

// TestAsyncHookDeliveryAndEnd: an async UserPromptSubmit hook does not hold
// the first request; what it prints reaches the model in the next request
// after it finished; one still running when `claude -p` ends is sent SIGTERM.
// The fast hook prints only once the agent's Bash call has started (so after
// the first request), and that call waits until the hook has printed, so the
// order does not depend on timing.
func TestAsyncHookDeliveryAndEnd(t *testing.T) {
	sb := NewSandbox(t)
	p := NewProbes(t)
	started, printed := p.Path("tool.started"), p.Path("hook.printed")
	fast := p.Command(t, "fast", `for i in $(seq 300); do [ -f `+started+` ] && break; sleep 0.1; done
echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ASYNC-CONTEXT"}}'
touch `+printed)
	slow := p.Command(t, "slow", `trap 'echo term > `+p.Path("slow.term")+`; exit 1' TERM
for i in $(seq 600); do sleep 0.1; done
echo done > `+p.Path("slow.done"))
	WriteSettings(t, filepath.Join(sb.Project, ".claude", "settings.json"), map[string][]Group{
		"UserPromptSubmit": {HookGroup("", CommandHook(fast, "async", true), CommandHook(slow, "async", true))},
	})
	s := NewStandIn(t, echoScript("touch "+started+"; for i in $(seq 300); do [ -f "+printed+" ] && break; sleep 0.1; done; sleep 2")...)

	sess := sb.Claude(t, s, "wait a little")
	if sess.Err != nil || len(sess.Main) != 2 {
		t.Fatalf("claude -p: %v, %d requests\nstderr: %s", sess.Err, len(sess.Main), sess.Stderr)
	}
	if n := len(requestLines(sess.Main[0], "ASYNC-CONTEXT")); n != 0 {
		t.Errorf("the first request already has the async hook's context")
	}
	if n := len(requestLines(sess.Main[1], "ASYNC-CONTEXT")); n == 0 {
		t.Errorf("the second request lacks the async hook's context")
	}
	if n := len(sess.DebugLines("moved to the background")); n != 2 {
		t.Errorf("the debug log says %d hooks moved to the background, want 2", n)
	}
	// The slow hook's TERM trap writes its file when Claude Code ends it.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(p.Path("slow.term")); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(p.Path("slow.term")); err != nil {
		t.Errorf("the async hook still running at the end got no SIGTERM: %v", err)
	}
	if _, err := os.Stat(p.Path("slow.done")); err == nil {
		t.Errorf("the async hook still running at the end finished its work")
	}
}

// TestBlockingExitCodes: exit code 2 of a UserPromptSubmit hook drops the
// prompt (no model request; `claude -p` prints why and exits 0), and of a
// PreToolUse hook denies the call with its stderr as the tool's error.
func TestBlockingExitCodes(t *testing.T) {
	t.Run("UserPromptSubmit", func(t *testing.T) {
		sb := NewSandbox(t)
		p := NewProbes(t)
		WriteSettings(t, filepath.Join(sb.Project, ".claude", "settings.json"), map[string][]Group{
			"UserPromptSubmit": {HookGroup("", CommandHook(p.Command(t, "block", "echo PROMPT-BLOCKED >&2; exit 2")))},
		})
		s := NewStandIn(t, Turn{Text: "should not be asked"})
		sess := sb.Claude(t, s, "say hi")
		if sess.Err != nil {
			t.Errorf("claude -p exited %v after a blocked prompt, want 0", sess.Err)
		}
		if len(sess.Main) != 0 {
			t.Errorf("a blocked prompt still reached the model (%d requests)", len(sess.Main))
		}
		if !strings.Contains(sess.Stdout, "blocked by hook") || !strings.Contains(sess.Stdout, "PROMPT-BLOCKED") {
			t.Errorf("claude -p printed %q, want the block and the hook's stderr", sess.Stdout)
		}
	})
	t.Run("PreToolUse", func(t *testing.T) {
		sb := NewSandbox(t)
		p := NewProbes(t)
		WriteSettings(t, filepath.Join(sb.Project, ".claude", "settings.json"), map[string][]Group{
			"PreToolUse": {HookGroup("Bash", CommandHook(p.Command(t, "deny", "echo TOOL-DENIED >&2; exit 2")))},
		})
		s := NewStandIn(t, echoScript("echo ran > ran.txt")...)
		sess := sb.Claude(t, s, "write the file")
		if sess.Err != nil || len(sess.Main) != 2 {
			t.Fatalf("claude -p: %v, %d requests\nstderr: %s", sess.Err, len(sess.Main), sess.Stderr)
		}
		if got := sb.ReadFile(t, "ran.txt"); got != "" {
			t.Errorf("the denied Bash call ran: ran.txt is %q", got)
		}
		res := sess.Main[1].Msg.ToolResults()
		if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Text, "TOOL-DENIED") {
			t.Errorf("tool results %+v, want one is_error result with the hook's stderr", res)
		}
	})
}

// TestPromptHookIsSideRequest: a "prompt" hook makes Claude Code ask the
// model itself, in a request without tools; the stand-in answers it as a
// side request, so the session's script goes to the agent loop whole. Claude
// Code takes the side answer, which is not the JSON a prompt hook wants, as
// the hook's error and goes on.
func TestPromptHookIsSideRequest(t *testing.T) {
	sb := NewSandbox(t)
	WriteSettings(t, filepath.Join(sb.Project, ".claude", "settings.json"), map[string][]Group{
		"UserPromptSubmit": {HookGroup("", Hook{"type": "prompt", "prompt": "Is this prompt fine? $ARGUMENTS"})},
	})
	s := NewStandIn(t, Turn{Text: "Main answer."})

	sess := sb.Claude(t, s, "say hi")
	if sess.Err != nil {
		t.Fatalf("claude -p: %v\nstderr: %s", sess.Err, sess.Stderr)
	}
	if len(sess.Requests) != 2 || len(sess.Main) != 1 {
		t.Fatalf("%d requests, %d of the agent loop; want the prompt hook's and the agent's", len(sess.Requests), len(sess.Main))
	}
	side := sess.Requests[0]
	if side.Main || len(side.Msg.Tools) != 0 || !strings.Contains(side.Msg.MessagesText(), "Is this prompt fine?") {
		t.Errorf("the first request is not the prompt hook's side request: main=%v, %d tools", side.Main, len(side.Msg.Tools))
	}
	if got := strings.TrimSpace(sess.Stdout); got != "Main answer." {
		t.Errorf("claude -p printed %q, want the script's turn", got)
	}
}
