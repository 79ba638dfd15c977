package claudecli

import (
	"strings"
	"testing"
)

// shellQuote single-quotes s for bash.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestAgentRecordsCorrection: the agent as the judge of what is a
// correction. SessionStart's context tells the agent how to report one
// (hooks.AgentInstruction: the MCP tool record_correction, else `lexsona
// record`), and that text is in the first request. The stand-in then plays
// an agent that follows it: a Bash call running `lexsona record --text
// "<the user's words>" --rule tool.pnpm-not-npm` (the sandbox's lexsona by
// its absolute path), which records one reinforcement with those words,
// then the same call with a rule id that does not exist, whose tool_result
// reaches the model as an error naming that rule, and records nothing.
func TestAgentRecordsCorrection(t *testing.T) {
	sb := NewSandbox(t)
	install(t, sb)
	words := "don't use npm in this repo, we use pnpm"
	record := func(rule string) Turn {
		return Turn{Text: "I'll record that.", ToolName: "Bash", ToolInput: map[string]any{
			"command":     shellQuote(sb.LexsonaBin) + " record --detect . --text " + shellQuote(words) + " --rule " + rule,
			"description": "Record the user's correction with LexSona",
		}}
	}
	const badRule = "tool.no-such-rule"
	s := NewStandIn(t, record(pnpmRule), record(badRule), Turn{Text: "Recorded."})

	sess := sb.Claude(t, s, "Add lodash to the project. And "+words+".")
	if sess.Err != nil {
		t.Fatalf("claude -p: %v\nstderr: %s", sess.Err, sess.Stderr)
	}
	first := firstRequestText(t, sess)
	for _, want := range []string{"record_correction", "lexsona record --detect . --text", "--rule RULE_ID"} {
		if !strings.Contains(first, want) {
			t.Errorf("the first request lacks the SessionStart instruction's %q; its messages:\n%s", want, sess.Main[0].Msg.MessagesText())
		}
	}
	if len(sess.Main) != 3 || s.Left() != 0 {
		t.Fatalf("%d requests of the agent loop with %d turns unanswered; want 3 and 0", len(sess.Main), s.Left())
	}

	ok := sess.Main[1].Msg.ToolResults()
	if len(ok) != 1 || ok[0].IsError || !strings.Contains(ok[0].Text, "reinforcement "+pnpmRule) {
		t.Errorf("the first call's tool results %+v, want one success saying it recorded a reinforcement of %s", ok, pnpmRule)
	}
	results := sess.Main[2].Msg.ToolResults()
	if len(results) != 2 {
		t.Fatalf("the third request carries %d tool results, want both calls'", len(results))
	}
	bad := results[1]
	if !bad.IsError || !strings.Contains(bad.Text, `rule "`+badRule+`" not found`) {
		t.Errorf("the wrong rule id's tool result is_error=%v %q, want an error saying rule %q is not found", bad.IsError, bad.Text, badRule)
	}
	t.Logf("the wrong rule id's tool result: %q", bad.Text)

	if got := reinforcements(t, sb, pnpmRule, words); got != 1 {
		t.Errorf("%s has %d reinforcements with the user's words, want the agent's 1", pnpmRule, got)
	}
	if got := reinforcements(t, sb, pnpmRule, ""); got != 1 {
		t.Errorf("%s has %d reinforcements in all, want 1 (the prompt itself is no evidence)", pnpmRule, got)
	}
}

// TestAgentRecordsInstruction: a correction said in another language. The
// SessionStart instruction asks the agent for the instruction the user's
// words state, as one English sentence; the stand-in's call passes it with
// --instruction and no rule id, and the classifier reads that sentence:
// the rule gets one reinforcement whose text is the user's own words and
// whose detail says how the agent read them.
func TestAgentRecordsInstruction(t *testing.T) {
	sb := NewSandbox(t)
	install(t, sb)
	words := "这个仓库里别再用 npm 了，全部用 pnpm"
	const reading = "Use pnpm instead of npm in this repository"
	s := NewStandIn(t, Turn{Text: "I'll record that.", ToolName: "Bash", ToolInput: map[string]any{
		"command":     shellQuote(sb.LexsonaBin) + " record --detect . --text " + shellQuote(words) + " --instruction " + shellQuote(reading),
		"description": "Record the user's correction with LexSona",
	}}, Turn{Text: "Recorded."})

	sess := sb.Claude(t, s, words)
	if sess.Err != nil {
		t.Fatalf("claude -p: %v\nstderr: %s", sess.Err, sess.Stderr)
	}
	if first := firstRequestText(t, sess); !strings.Contains(first, "--instruction") {
		t.Errorf("the first request lacks the SessionStart instruction's --instruction; its messages:\n%s", sess.Main[0].Msg.MessagesText())
	}
	if len(sess.Main) != 2 || s.Left() != 0 {
		t.Fatalf("%d requests of the agent loop with %d turns unanswered; want 2 and 0", len(sess.Main), s.Left())
	}
	if res := sess.Main[1].Msg.ToolResults(); len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Text, "reinforcement "+pnpmRule) {
		t.Errorf("the call's tool results %+v, want one success saying it recorded a reinforcement of %s", res, pnpmRule)
	}
	n := 0
	for _, e := range why(t, sb, pnpmRule).History {
		if e.EventType == "reinforcement" && e.UserText == words {
			n++
			if !strings.Contains(e.Detail, `reported as: "`+reading+`"`) {
				t.Errorf("the event's detail %q does not say how the agent read the words", e.Detail)
			}
		}
	}
	if n != 1 {
		t.Errorf("%s has %d reinforcements with the user's words, want 1", pnpmRule, n)
	}
}
