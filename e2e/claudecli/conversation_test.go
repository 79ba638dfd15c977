package claudecli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
)

// turnTimeout bounds one prompt of a conversation: its answer and its
// UserPromptSubmit hook's end.
const turnTimeout = 60 * time.Second

// endTimeout bounds a conversation's exit once its input is closed.
const endTimeout = 30 * time.Second

// Conversation is one Claude Code session kept open across prompts, as a
// user at the terminal keeps it: `claude -p --input-format stream-json
// --output-format stream-json --include-hook-events`, the user's prompts
// written to its stdin one line each, its events read from its stdout.
//
// A one-prompt `claude -p` (Sandbox.Claude) ends as soon as the model has
// answered, and Claude Code then cancels the async UserPromptSubmit hook
// still running; a test of what that hook captures talks through a
// Conversation, whose Say returns only once the hook has ended.
type Conversation struct {
	t      *testing.T
	s      *StandIn
	cmd    *exec.Cmd
	cancel context.CancelFunc
	stdin  io.WriteCloser
	stderr testenv.SyncBuffer
	debug  string
	start  time.Time
	events chan streamEvent // stdout's events, closed at its end
	seen   []streamEvent    // the events read so far
	said   int              // prompts written
	ended  bool
}

// streamEvent is one line of `--output-format stream-json`: its kind, and
// for a hook's events the hook's event name.
type streamEvent struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	HookEvent string `json:"hook_event"`
	Outcome   string `json:"outcome"`
	Line      string `json:"-"`
}

// Converse starts a conversation in the project folder against the stand-in
// s, in the same environment and with the same flags as Sandbox.Claude; args
// come after them (e.g. --session-id). It ends at the test's end if the test
// did not End it.
func (sb *Sandbox) Converse(t *testing.T, s *StandIn, args ...string) *Conversation {
	t.Helper()
	c := &Conversation{t: t, s: s, debug: filepath.Join(t.TempDir(), "claude-debug.log"), events: make(chan streamEvent, 1024)}
	ctx, cancel := context.WithTimeout(context.Background(), sessionTimeout)
	c.cancel = cancel
	argv := append([]string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-hook-events"},
		append(claudeFlags(c.debug), args...)...)
	c.cmd = exec.CommandContext(ctx, sb.ClaudeBin, argv...)
	c.cmd.Dir = sb.Project
	c.cmd.Env = sb.claudeEnv(s)
	c.cmd.Stderr = &c.stderr
	c.cmd.WaitDelay = 5 * time.Second
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.start = time.Now()
	if err := c.cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() {
		defer close(c.events)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			ev := streamEvent{Line: sc.Text()}
			_ = json.Unmarshal(sc.Bytes(), &ev)
			c.events <- ev
		}
	}()
	t.Cleanup(func() {
		if !c.ended { // the test stopped early: kill it
			c.cancel()
			c.End()
		}
	})
	return c
}

// count is how many of the events read so far match.
func (c *Conversation) count(match func(streamEvent) bool) int {
	n := 0
	for _, ev := range c.seen {
		if match(ev) {
			n++
		}
	}
	return n
}

func isResult(ev streamEvent) bool { return ev.Type == "result" }

func isPromptHookEnd(ev streamEvent) bool {
	return ev.Type == "system" && ev.Subtype == "hook_response" && ev.HookEvent == "UserPromptSubmit"
}

// Say writes prompt as the user's next message and waits, at most
// turnTimeout, until the session has answered it and LexSona's async
// UserPromptSubmit hook has ended for it (so the prompt is on the spool, or
// delivered). It fails the test when either does not happen.
func (c *Conversation) Say(prompt string) {
	c.t.Helper()
	msg, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}})
	if _, err := c.stdin.Write(append(msg, '\n')); err != nil {
		c.t.Fatalf("writing the prompt to claude: %v\nstderr: %s", err, c.stderr.String())
	}
	c.said++
	timer := time.NewTimer(turnTimeout)
	defer timer.Stop()
	for c.count(isResult) < c.said || c.count(isPromptHookEnd) < c.said {
		select {
		case ev, ok := <-c.events:
			if !ok {
				c.t.Fatalf("claude ended before answering prompt %d %q\nstderr: %s", c.said, prompt, c.stderr.String())
			}
			c.seen = append(c.seen, ev)
		case <-timer.C:
			c.t.Fatalf("prompt %d %q: after %s, %d answers and %d UserPromptSubmit hook ends, want %d of each",
				c.said, prompt, turnTimeout, c.count(isResult), c.count(isPromptHookEnd), c.said)
		}
	}
	c.t.Logf("said %q at %s", prompt, time.Since(c.start).Round(time.Millisecond))
}

// End closes the session's input, waits for it to exit (bounded by its
// timeout) and returns what it left, as Sandbox.Claude does; Stdout is its
// stream of events.
func (c *Conversation) End() Session {
	c.t.Helper()
	c.ended = true
	defer c.cancel()
	kill := time.AfterFunc(endTimeout, c.cancel)
	defer kill.Stop()
	c.stdin.Close()
	for ev := range c.events {
		c.seen = append(c.seen, ev)
	}
	err := c.cmd.Wait()
	var lines []string
	for _, ev := range c.seen {
		lines = append(lines, ev.Line)
	}
	sess := Session{Stdout: strings.Join(lines, "\n"), Stderr: c.stderr.String(), Err: err, Elapsed: time.Since(c.start)}
	if b, rerr := os.ReadFile(c.debug); rerr == nil {
		sess.Debug = string(b)
	}
	sess.Requests = c.s.Requests()
	sess.Main = c.s.MainRequests()
	c.t.Logf("conversation of %d prompts: %s, exit %v, %d requests (%d of the agent loop)", c.said, sess.Elapsed.Round(time.Millisecond), err, len(sess.Requests), len(sess.Main))
	for _, ev := range c.seen {
		if ev.Type == "system" && ev.Subtype == "hook_response" && ev.Outcome != "success" {
			c.t.Logf("a hook did not succeed: %.600s", ev.Line)
		}
	}
	c.t.Cleanup(func() {
		if c.t.Failed() {
			c.t.Logf("conversation: stderr %q; the debug log's hook lines:\n%s", sess.Stderr, sess.hookLog())
		}
	})
	return sess
}
