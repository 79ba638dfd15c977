package claudecli

import (
	"fmt"
	"testing"
	"time"
)

// TestOneShotSessionsLoseNoPrompt: ten one-shot `claude -p` sessions, each
// ending as soon as the model answers, each with a correction of its own:
// every one is recorded, once. (With the prompt hook async, Claude Code
// stopped it at the session's end and 2 of 10 never reached the spool.)
func TestOneShotSessionsLoseNoPrompt(t *testing.T) {
	sb := NewSandbox(t)
	install(t, sb)
	const n = 10
	prompt := func(i int) string { return fmt.Sprintf("CORRECT[tool.pnpm-not-npm]: use pnpm not npm, take %d", i) }
	for i := range n {
		sb.Claude(t, NewStandIn(t, Turn{Text: "One."}), prompt(i))
	}
	lost := -1
	waitFor(20*time.Second, func() bool {
		lost = 0
		for i := range n {
			if reinforcements(t, sb, pnpmRule, prompt(i)) != 1 {
				lost++
			}
		}
		return lost == 0
	})
	if lost != 0 {
		t.Errorf("%d of %d one-shot sessions' corrections are not recorded exactly once (spool %+v)", lost, n, spoolStatus(t, sb))
	}
}
