package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/registry"
)

// ViolationTimeout bounds the wait for the write of a violation, so that a
// busy store never holds the agent's tool call for longer.
const ViolationTimeout = time.Second

// ErrNotRecorded is wrapped by the error HandleClaudeCode returns, together
// with its deny answer, when a denied tool call could not be recorded on the
// rule's receipts: the caller answers the deny and logs the error.
var ErrNotRecorded = errors.New("the denied tool call was not recorded on the rule's receipts")

// handleToolUse denies a tool call that breaks the check of a must rule in
// force for the session's scope, with the rule's text as the reason, and
// records the violation when b is a ViolationRecorder (a failed write
// returns the deny with an error wrapping ErrNotRecorded); any other call
// gets no decision (Claude Code's permission flow applies).
func handleToolUse(ctx context.Context, ev Event, uc UseCases, scopeOf ScopeFunc) (*Output, error) {
	if ev.ToolName == "" {
		return nil, nil
	}
	var input map[string]any
	if len(ev.ToolInput) > 0 {
		if err := json.Unmarshal(ev.ToolInput, &input); err != nil {
			return nil, engine.Errorf(engine.EINVALID, "tool_input is not a JSON object: %v", err)
		}
	}
	scope, err := scopeOf(ctx, ev)
	if err != nil {
		return nil, err
	}
	d, err := uc.Enforce(ctx, scope, ev.ToolName, input)
	if err != nil || d == nil {
		return nil, err
	}
	out := &Output{HookSpecificOutput: SpecificOutput{
		HookEventName:      ev.HookEventName,
		PermissionDecision: "deny",
		PermissionDecisionReason: fmt.Sprintf("LexSona rule [%s] (must): %s. This %s call breaks it (its %s matches the rule's check): do it another way, or ask the user.",
			d.RuleID, d.Text, ev.ToolName, d.Field),
	}}
	return out, recordViolation(ctx, uc, memory.Violation{
		RuleID: d.RuleID, Tool: ev.ToolName, Field: d.Field, Pattern: d.Pattern,
		Input: d.Input, FrameID: FrameID(ev.SessionID), Scope: scope,
	})
}

// recordViolation records v with uc. It waits for the
// write at most ViolationTimeout: a store held by another writer makes the
// deny wait no longer, and the write, which ctx's end does not cancel, goes
// on behind the answer (in a process that stays up, like the service). Its
// error wraps ErrNotRecorded.
func recordViolation(ctx context.Context, uc UseCases, v memory.Violation) error {
	done := make(chan error, 1)
	go func() {
		_, err := uc.RecordViolation(context.WithoutCancel(ctx), v)
		done <- err
	}()
	t := time.NewTimer(ViolationTimeout)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%w: %w", ErrNotRecorded, err)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("%w: the store did not take it within %s", ErrNotRecorded, ViolationTimeout)
	}
}

// EnforcedTools is the PreToolUse matcher for reg: the tool patterns of
// every check of its rules, as one alternation ("Bash", "Bash|Write"), ""
// when no rule carries a check. Every rule counts, active or not, so a rule
// that becomes active later is enforced without installing again.
func EnforcedTools(reg *registry.Registry) string {
	seen := map[string]bool{}
	var tools []string
	for _, d := range reg.Definitions() {
		for _, c := range reg.Checks(d.Rule.RuleID) {
			t := strings.TrimSuffix(strings.TrimPrefix(c.Tool.String(), "^(?:"), ")$")
			if !seen[t] {
				seen[t] = true
				tools = append(tools, t)
			}
		}
	}
	sort.Strings(tools)
	return strings.Join(tools, "|")
}
