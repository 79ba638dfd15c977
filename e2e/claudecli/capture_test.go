package claudecli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// ruleEvidence is the reinforcements and counterexamples lexsona holds on
// rule (`lexsona --json rules show`).
func ruleEvidence(t *testing.T, sb *Sandbox, rule string) (reinforcements, counters int) {
	t.Helper()
	out := sb.Lexsona(t, "--json", "rules", "show", rule)
	var r struct {
		Reinforcements  int `json:"reinforcements"`
		CounterExamples int `json:"counter_examples"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("lexsona --json rules show %s: %v\n%s", rule, err, out)
	}
	return r.Reinforcements, r.CounterExamples
}

// captureWait bounds the wait for a captured prompt to be recorded: the
// UserPromptSubmit hook may record it after it answered (an async hook, or a
// spool worked through later).
const captureWait = 20 * time.Second

// TestPromptCaptureRecordsCorrection: the user's prompt reaches LexSona's
// UserPromptSubmit hook through Claude Code, and an explicit correction
// (CORRECT[rule]: ...) ends up recorded on the rule as one reinforcement.
func TestPromptCaptureRecordsCorrection(t *testing.T) {
	sb := NewSandbox(t)
	installHooks(t, sb)
	s := NewStandIn(t, Turn{Text: "Understood."})

	prompt := "CORRECT[" + sedRule + "]: do not edit my files with sed -i, use the edit tool"
	sess := sb.Claude(t, s, prompt)
	if sess.Err != nil || len(sess.Main) == 0 {
		t.Fatalf("claude -p: %v, %d requests\nstderr: %s", sess.Err, len(sess.Main), sess.Stderr)
	}
	if !strings.Contains(sess.Main[0].Msg.MessagesText(), prompt) {
		t.Errorf("the first request lacks the user's prompt")
	}
	ran := len(sess.DebugLines("Hooks: UserPromptSubmit", "finished with status 0")) +
		len(sess.DebugLines("Hooks: UserPromptSubmit", "moved to the background"))
	if ran != 1 {
		t.Errorf("the debug log has %d runs of the UserPromptSubmit hook, want 1", ran)
	}
	got := 0
	for deadline := time.Now().Add(captureWait); ; time.Sleep(200 * time.Millisecond) {
		if got, _ = ruleEvidence(t, sb, sedRule); got != 0 || time.Now().After(deadline) {
			break
		}
	}
	if got != 1 {
		t.Errorf("%s has %d reinforcements %s after the session, want the prompt's 1", sedRule, got, captureWait)
	}
}
