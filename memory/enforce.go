package memory

import (
	"context"
	"slices"

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

// Denial is a tool call a must rule's check refuses: the rule, its text,
// and the check that matched — the input field, its pattern, and the
// field's value (what the agent tried to do).
type Denial struct {
	RuleID, Text         string
	Tool, Field, Pattern string
	Input                string
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

// Deny is the decision on a call of tool with input under enf: the first
// check it breaks, nil when it breaks none.
func Deny(enf []Enforcement, tool string, input map[string]any) *Denial {
	for _, e := range enf {
		for _, c := range e.Checks {
			if c.Matches(tool, input) {
				v, _ := input[c.Field].(string)
				return &Denial{RuleID: e.RuleID, Text: e.Text, Tool: tool, Field: c.Field, Pattern: c.Pattern.String(), Input: v}
			}
		}
	}
	return nil
}

// Enforce decides whether a call of tool with input breaks the check of a
// must rule in force for scope (the persona of scope, uncut, with the
// checks of the registries in force): the denial, or nil. It needs no
// embedder and writes nothing (RecordViolation keeps a denied call).
// Errors: the store's and the registries'.
func (s *Service) Enforce(ctx context.Context, scope engine.Scope, tool string, input map[string]any) (*Denial, error) {
	snap, err := s.Persona(ctx, PersonaRequest{Scope: scope, Max: MaxSnapshotRules})
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(snap.Rules, func(r engine.SnapshotRule) bool { return r.Severity == engine.SeverityMust }) {
		return nil, nil // no must rule in force: no registry to read
	}
	reg, err := s.InForce(ctx)
	if err != nil {
		return nil, err
	}
	return Deny(Enforcements(snap, reg), tool, input), nil
}
