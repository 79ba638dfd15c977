package claudecli

import (
	"strings"
	"testing"
)

// pnpmRule is the default pack's rule the capture tests correct: a must
// rule of the javascript tag (the sandbox's package.json gives it), inactive
// on a new database, with no enforce check (so no PreToolUse deny gets in
// the way of a Bash call).
const (
	pnpmRule     = "tool.pnpm-not-npm"
	pnpmRuleText = "Use pnpm to install dependencies and run scripts; never npm or yarn, and never create package-lock.json or yarn.lock"
	pnpmCorrect  = "CORRECT[" + pnpmRule + "]: don't run npm install here, this project uses pnpm"
)

// Session ids the tests give Claude Code (--session-id): the same id and
// prompt are the same idempotency key, another id is another key.
const (
	sessionA = "7b0e6c39-1f2a-4b3c-8d4e-5f6a7b8c9d0e"
	sessionB = "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
)

// TestCorrectionRecordedOnce: a correction typed as a prompt
// (CORRECT[tool.pnpm-not-npm]: …) is recorded exactly once, counted in the
// rule's history (`lexsona why --json`).
//   - command: recorded once after the session; a second session with the
//     same session id and prompt (Claude Code delivers the event again)
//     records nothing more; a third under another session id, the user
//     saying it again, is a second reinforcement (so the count above is
//     not blind).
//   - http: the service is stopped during the session, after a first
//     prompt and before the correction: the correction waits on the spool
//     (spool status: 1 waiting, the delivery error kept) and nothing is
//     recorded; once the service is started again on the same address it
//     drains the spool itself and records it, once; a second session with
//     the same id and prompt records nothing more.
func TestCorrectionRecordedOnce(t *testing.T) {
	t.Run("command", func(t *testing.T) {
		sb := NewSandbox(t)
		install(t, sb)
		for i, tc := range []struct {
			session string
			want    int
		}{{sessionA, 1}, {sessionA, 1}, {sessionB, 2}} {
			c := sb.Converse(t, NewStandIn(t, Turn{Text: "Understood."}), "--session-id", tc.session)
			c.Say(pnpmCorrect)
			if sess := c.End(); sess.Err != nil {
				t.Fatalf("session %d: claude: %v\nstderr: %s", i+1, sess.Err, sess.Stderr)
			}
			waitDelivered(t, sb)
			if got := reinforcements(t, sb, pnpmRule, pnpmCorrect); got != tc.want {
				t.Errorf("after session %d (id %s) the rule has %d reinforcements of the prompt, want %d", i+1, tc.session, got, tc.want)
			}
		}
	})

	t.Run("http", func(t *testing.T) {
		sb := NewSandbox(t)
		addr := freeAddr(t)
		svc := sb.StartService(t, addr)
		install(t, sb, "--http", svc.URL)

		c := sb.Converse(t, NewStandIn(t, Turn{Text: "Sure."}, Turn{Text: "Understood."}), "--session-id", sessionA)
		c.Say("What does this project use to build?")
		waitDelivered(t, sb)
		svc.Stop(t)
		c.Say(pnpmCorrect)
		var st SpoolStatus
		if !waitFor(recordWait, func() bool { st = spoolStatus(t, sb); return st.LastError != "" }) {
			t.Fatalf("with the service stopped, spool status shows no delivery error after %s: %+v", recordWait, st)
		}
		if sess := c.End(); sess.Err != nil {
			t.Fatalf("claude: %v\nstderr: %s", sess.Err, sess.Stderr)
		}
		if st = spoolStatus(t, sb); st.Waiting != 1 || st.Failed != 0 || !strings.Contains(st.LastError, addr) {
			t.Errorf("after the session, with the service stopped, spool status is %+v; want 1 waiting, none refused, an error naming %s", st, addr)
		}
		if got := reinforcements(t, sb, pnpmRule, ""); got != 0 {
			t.Errorf("with the service stopped the rule got %d reinforcements, want none yet", got)
		}

		// Started again, the service drains the spool itself: no prompt,
		// hook or drain command is needed for the waiting one.
		svc = sb.StartService(t, addr)
		if !waitFor(recordWait, func() bool { st = spoolStatus(t, sb); return st.Waiting == 0 }) || st.Failed != 0 || st.LastError != "" {
			t.Errorf("%s after the service started again spool status is %+v, want it empty with no error", recordWait, st)
		}
		if got := reinforcements(t, sb, pnpmRule, pnpmCorrect); got != 1 {
			t.Errorf("after the service drained its spool the rule has %d reinforcements of the prompt, want 1", got)
		}
		if out := sb.Lexsona(t, "spool", "drain"); strings.TrimSpace(out) != "delivered 0" {
			t.Errorf("lexsona spool drain after the service's own printed %q, want delivered 0", out)
		}

		c = sb.Converse(t, NewStandIn(t, Turn{Text: "Understood."}), "--session-id", sessionA)
		c.Say(pnpmCorrect)
		if sess := c.End(); sess.Err != nil {
			t.Fatalf("second session: claude: %v\nstderr: %s", sess.Err, sess.Stderr)
		}
		waitDelivered(t, sb)
		if got := reinforcements(t, sb, pnpmRule, pnpmCorrect); got != 1 {
			t.Errorf("after a second session with the same id and prompt the rule has %d reinforcements of it, want 1", got)
		}
		if n := len(svc.Requests("POST", "/v1/hooks/claude-code")); n != 1 {
			t.Errorf("the restarted service was posted %d prompts, want the second session's alone (it took the spooled one itself): 1", n)
		}
	})
}
