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

// ViolationRecorder is a Backend that keeps the tool calls it denies on the
// rule's receipts (memory.Service.RecordViolation). A Backend without it
// denies the same calls and records nothing.
type ViolationRecorder interface {
	RecordViolation(ctx context.Context, v memory.Violation) (memory.ViolationResult, error)
}

// ViolationTimeout bounds the wait for the write of a violation, so that a
// busy store never holds the agent's tool call for longer.
const ViolationTimeout = time.Second

// ErrNotRecorded is wrapped by the error HandleClaudeCode returns, together
// with its deny answer, when a denied tool call could not be recorded on the
// rule's receipts: the caller answers the deny and logs the error.
var ErrNotRecorded = errors.New("the denied tool call was not recorded on the rule's receipts")

// Enforcement is a must rule in force with the checks of its registry
// entry's enforce.
type Enforcement struct {
	RuleID string
	Text   string
	Checks []registry.Check
}

// Enforced is the enforced-rules use case of both hook paths (the command
// hook and the service's route): the must rules in force for scope that
// carry checks, from mem's persona of scope with no cut and the registries
// in force. It needs no embedder. Errors: mem's.
func Enforced(ctx context.Context, mem *memory.Service, scope engine.Scope) ([]Enforcement, error) {
	reg, err := mem.InForce(ctx)
	if err != nil {
		return nil, err
	}
	snap, err := mem.Persona(ctx, memory.PersonaRequest{Scope: scope, Max: memory.MaxSnapshotRules})
	if err != nil {
		return nil, err
	}
	return Enforcements(snap, reg), nil
}

// Enforcements pairs the must rules of snap (its active and provisional
// rules) with the checks reg gives them; rules without checks are left out.
func Enforcements(snap engine.Snapshot, reg *registry.Registry) []Enforcement {
	var out []Enforcement
	for _, r := range snap.Rules {
		if r.Severity != engine.SeverityMust {
			continue
		}
		if c := reg.Checks(r.RuleID); len(c) > 0 {
			out = append(out, Enforcement{RuleID: r.RuleID, Text: r.Text, Checks: c})
		}
	}
	return out
}

// handleToolUse denies a tool call that breaks the check of a must rule in
// force for the session's scope, with the rule's text as the reason, and
// records the violation when b is a ViolationRecorder (a failed write
// returns the deny with an error wrapping ErrNotRecorded); any other call
// gets no decision (Claude Code's permission flow applies).
func handleToolUse(ctx context.Context, ev Event, b Backend) (*Output, error) {
	if ev.ToolName == "" {
		return nil, nil
	}
	var input map[string]any
	if len(ev.ToolInput) > 0 {
		if err := json.Unmarshal(ev.ToolInput, &input); err != nil {
			return nil, engine.Errorf(engine.EINVALID, "tool_input is not a JSON object: %v", err)
		}
	}
	scope, err := b.Scope(ctx, ev)
	if err != nil {
		return nil, err
	}
	enf, err := b.Enforced(ctx, scope)
	if err != nil {
		return nil, err
	}
	for _, e := range enf {
		for _, c := range e.Checks {
			if c.Matches(ev.ToolName, input) {
				out := &Output{HookSpecificOutput: SpecificOutput{
					HookEventName:      ev.HookEventName,
					PermissionDecision: "deny",
					PermissionDecisionReason: fmt.Sprintf("LexSona rule [%s] (must): %s. This %s call breaks it (its %s matches the rule's check): do it another way, or ask the user.",
						e.RuleID, e.Text, ev.ToolName, c.Field),
				}}
				return out, recordViolation(ctx, b, memory.Violation{
					RuleID: e.RuleID, Tool: ev.ToolName, Field: c.Field, Pattern: c.Pattern.String(),
					Input: input[c.Field].(string), FrameID: FrameID(ev.SessionID), Scope: scope,
				})
			}
		}
	}
	return nil, nil
}

// recordViolation records v when b is a ViolationRecorder. It waits for the
// write at most ViolationTimeout: a store held by another writer makes the
// deny wait no longer, and the write, which ctx's end does not cancel, goes
// on behind the answer (in a process that stays up, like the service). Its
// error wraps ErrNotRecorded.
func recordViolation(ctx context.Context, b Backend, v memory.Violation) error {
	vr, ok := b.(ViolationRecorder)
	if !ok {
		return nil
	}
	done := make(chan error, 1)
	go func() {
		_, err := vr.RecordViolation(context.WithoutCancel(ctx), v)
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
