package claudecli

import (
	"strings"
	"testing"
)

// sedCommand is the Bash call the stand-in makes the agent try: an in-place
// sed edit, which tool.no-sed-for-file-editing's enforce check matches.
const sedCommand = "sed -i s/apple/banana/ fruit.txt"

// sedScript is the stand-in's script for the deny tests: a Bash tool call
// running sedCommand, then a closing text once the tool's result is back.
func sedScript() []Turn {
	return []Turn{
		{Text: "I will edit the file.", ToolName: "Bash", ToolInput: map[string]any{"command": sedCommand, "description": "Replace apple with banana"}},
		{Text: "Done."},
	}
}

// TestPreToolUseDenyReachesModel: with the sed rule active and LexSona's
// hooks installed, the agent's `sed -i` Bash call is denied by the PreToolUse
// hook before it runs; the model's next request carries the call's
// tool_result, marked is_error, whose text holds the rule's text as the
// deny reason, and the file is untouched.
func TestPreToolUseDenyReachesModel(t *testing.T) {
	sb := NewSandbox(t)
	sb.WriteFile(t, "fruit.txt", "apple\n")
	makeRuleActive(t, sb, sedRule)
	installHooks(t, sb)
	s := NewStandIn(t, sedScript()...)

	sess := sb.Claude(t, s, "Replace apple with banana in fruit.txt")
	if sess.Err != nil {
		t.Fatalf("claude -p: %v\nstderr: %s", sess.Err, sess.Stderr)
	}
	if len(sess.Main) != 2 || s.Left() != 0 {
		t.Fatalf("%d requests of the agent loop with %d turns unanswered; want 2 and 0", len(sess.Main), s.Left())
	}
	results := sess.Main[1].Msg.ToolResults()
	if len(results) != 1 {
		t.Fatalf("the second request carries %d tool results, want 1: %s", len(results), sess.Main[1].Msg.MessagesText())
	}
	res := results[0]
	if !res.IsError {
		t.Errorf("the tool result is not is_error: %q", res.Text)
	}
	if !strings.Contains(res.Text, sedRuleText) {
		t.Errorf("the tool result lacks the rule's text %q: %q", sedRuleText, res.Text)
	}
	if got := sb.ReadFile(t, "fruit.txt"); got != "apple\n" {
		t.Errorf("fruit.txt is %q after the denied sed, want it untouched", got)
	}
	if lines := sess.DebugLines("Hooks: PreToolUse:Bash", "finished with status 0"); len(lines) != 1 {
		t.Errorf("the debug log has %d PreToolUse:Bash hook runs, want 1", len(lines))
	}
}

// TestWithoutHooksSedRuns is the deny test's control: the same session
// without LexSona's hooks runs the sed call (the Bash tool is allowed), so
// the deny above is the hook's doing, not the permission mode's.
func TestWithoutHooksSedRuns(t *testing.T) {
	sb := NewSandbox(t)
	sb.WriteFile(t, "fruit.txt", "apple\n")
	s := NewStandIn(t, sedScript()...)

	sess := sb.Claude(t, s, "Replace apple with banana in fruit.txt")
	if sess.Err != nil {
		t.Fatalf("claude -p: %v\nstderr: %s", sess.Err, sess.Stderr)
	}
	if len(sess.Main) != 2 {
		t.Fatalf("%d requests of the agent loop, want 2", len(sess.Main))
	}
	if got := sb.ReadFile(t, "fruit.txt"); got != "banana\n" {
		t.Errorf("fruit.txt is %q, want the sed call to have run", got)
	}
	for _, r := range sess.Main[1].Msg.ToolResults() {
		if r.IsError {
			t.Errorf("the sed call's result is an error without hooks: %q", r.Text)
		}
	}
}
