package hooks

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/registry"
)

// Enforcement is a must rule in force with the checks of its registry
// entry's enforce.
type Enforcement struct {
	RuleID string
	Text   string
	Checks []registry.Check
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
// force for the session's scope, with the rule's text as the reason; any
// other call gets no decision (Claude Code's permission flow applies).
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
	scope, err := DetectScope(ev.Cwd, AgentClaude)
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
				return &Output{HookSpecificOutput: SpecificOutput{
					HookEventName:      ev.HookEventName,
					PermissionDecision: "deny",
					PermissionDecisionReason: fmt.Sprintf("LexSona rule [%s] (must): %s. This %s call breaks it (its %s matches the rule's check): do it another way, or ask the user.",
						e.RuleID, e.Text, ev.ToolName, c.Field),
				}}, nil
			}
		}
	}
	return nil, nil
}
