package claudecli

import (
	"strings"
	"testing"
)

// TestPersonaReachesFirstRequest: with LexSona's command hooks installed in
// the project and an active rule, Claude Code runs the SessionStart hook
// and the persona it answers is in the first request of the agent loop.
func TestPersonaReachesFirstRequest(t *testing.T) {
	sb := NewSandbox(t)
	makeRuleActive(t, sb, sedRule)
	installHooks(t, sb)
	s := NewStandIn(t, Turn{Text: "Noted."})

	sess := sb.Claude(t, s, "What should I keep in mind in this project?")
	if sess.Err != nil {
		t.Fatalf("claude -p: %v\nstderr: %s", sess.Err, sess.Stderr)
	}
	if len(sess.Main) == 0 {
		t.Fatalf("no request of the agent loop reached the stand-in; unknown routes: %v", s.Unknown())
	}
	first := sess.Main[0].Msg
	all := first.SystemText() + "\n" + first.MessagesText()
	for _, want := range []string{"LexSona Behavioral Rules", "[" + sedRule + "] " + sedRuleText} {
		if !strings.Contains(all, want) {
			t.Errorf("the first request lacks %q; its messages:\n%s", want, first.MessagesText())
		}
	}
	if got := strings.TrimSpace(sess.Stdout); got != "Noted." {
		t.Errorf("claude -p printed %q, want the stand-in's answer", got)
	}
}
