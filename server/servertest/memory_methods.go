package servertest

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
)

// The methods of Memory: each notes its call, then calls its …Fn field
// or answers zero.

func (m *Memory) Classify(ctx context.Context, text string, scope engine.Scope) (_ classifier.Result, _ error) {
	if m.note("Classify"); m.ClassifyFn == nil {
		return
	}
	return m.ClassifyFn(ctx, text, scope)
}

func (m *Memory) ListConfirmations(ctx context.Context, status string, limit int) (_ memory.ConfirmationList, _ error) {
	if m.note("ListConfirmations"); m.ListConfirmationsFn == nil {
		return
	}
	return m.ListConfirmationsFn(ctx, status, limit)
}

func (m *Memory) Confirm(ctx context.Context, id int64, action, ruleID string, pol engine.Polarity, at time.Time) (_ memory.ConfirmResult, _ error) {
	if m.note("Confirm"); m.ConfirmFn == nil {
		return
	}
	return m.ConfirmFn(ctx, id, action, ruleID, pol, at)
}

func (m *Memory) ListRules(ctx context.Context, q memory.RulesQuery) (_ memory.RuleList, _ error) {
	if m.note("ListRules"); m.ListRulesFn == nil {
		return
	}
	return m.ListRulesFn(ctx, q)
}

func (m *Memory) GetRule(ctx context.Context, id string, now time.Time) (_ engine.RuleView, _ error) {
	if m.note("GetRule"); m.GetRuleFn == nil {
		return
	}
	return m.GetRuleFn(ctx, id, now)
}

func (m *Memory) History(ctx context.Context, id string, after int64, limit int) (_ memory.History, _ error) {
	if m.note("History"); m.HistoryFn == nil {
		return
	}
	return m.HistoryFn(ctx, id, after, limit)
}

func (m *Memory) ExplainRule(ctx context.Context, id string, now time.Time, limit int) (_ memory.RuleHistory, _ error) {
	if m.note("ExplainRule"); m.ExplainRuleFn == nil {
		return
	}
	return m.ExplainRuleFn(ctx, id, now, limit)
}

func (m *Memory) AddRule(ctx context.Context, n memory.NewRule) (_ engine.RuleView, _ error) {
	if m.note("AddRule"); m.AddRuleFn == nil {
		return
	}
	return m.AddRuleFn(ctx, n)
}

func (m *Memory) EditRule(ctx context.Context, id string, p memory.RulePatch, at time.Time) (_ engine.RuleView, _ error) {
	if m.note("EditRule"); m.EditRuleFn == nil {
		return
	}
	return m.EditRuleFn(ctx, id, p, at)
}

func (m *Memory) ArchiveRule(ctx context.Context, id string, at time.Time) (_ engine.RuleView, _ error) {
	if m.note("ArchiveRule"); m.ArchiveRuleFn == nil {
		return
	}
	return m.ArchiveRuleFn(ctx, id, at)
}

func (m *Memory) MergeRule(ctx context.Context, from, into string, at time.Time) (_ engine.RuleView, _ error) {
	if m.note("MergeRule"); m.MergeRuleFn == nil {
		return
	}
	return m.MergeRuleFn(ctx, from, into, at)
}

func (m *Memory) AcceptCandidate(ctx context.Context, id string, as memory.AcceptAs, at time.Time) (_ memory.AcceptedRule, _ error) {
	if m.note("AcceptCandidate"); m.AcceptCandidateFn == nil {
		return
	}
	return m.AcceptCandidateFn(ctx, id, as, at)
}

func (m *Memory) ReviewCandidate(ctx context.Context, id string, accept bool, at time.Time) (_ engine.RuleView, _ error) {
	if m.note("ReviewCandidate"); m.ReviewCandidateFn == nil {
		return
	}
	return m.ReviewCandidateFn(ctx, id, accept, at)
}

func (m *Memory) Config(ctx context.Context) (_ engine.Config, _ error) {
	if m.note("Config"); m.ConfigFn == nil {
		return
	}
	return m.ConfigFn(ctx)
}

func (m *Memory) Persona(ctx context.Context, req memory.PersonaRequest) (_ engine.Snapshot, _ error) {
	if m.note("Persona"); m.PersonaFn == nil {
		return
	}
	return m.PersonaFn(ctx, req)
}

func (m *Memory) Why(ctx context.Context, scope engine.Scope, now time.Time) (_ engine.Why, _ error) {
	if m.note("Why"); m.WhyFn == nil {
		return
	}
	return m.WhyFn(ctx, scope, now)
}

func (m *Memory) Learned(ctx context.Context, since time.Time, limit int) (_ memory.Learned, _ error) {
	if m.note("Learned"); m.LearnedFn == nil {
		return
	}
	return m.LearnedFn(ctx, since, limit)
}

func (m *Memory) Retract(ctx context.Context, id int64, at time.Time) (_ memory.RetractResult, _ error) {
	if m.note("Retract"); m.RetractFn == nil {
		return
	}
	return m.RetractFn(ctx, id, at)
}

func (m *Memory) Capture(ctx context.Context, c engine.Correction) (_ memory.CaptureResponse, _ error) {
	if m.note("Capture"); m.CaptureFn == nil {
		return
	}
	return m.CaptureFn(ctx, c)
}

func (m *Memory) Review(ctx context.Context, scope engine.Scope) (_ memory.ReviewCount, _ error) {
	if m.note("Review"); m.ReviewFn == nil {
		return
	}
	return m.ReviewFn(ctx, scope)
}

func (m *Memory) Enforce(ctx context.Context, scope engine.Scope, tool string, input map[string]any) (_ *memory.Denial, _ error) {
	if m.note("Enforce"); m.EnforceFn == nil {
		return
	}
	return m.EnforceFn(ctx, scope, tool, input)
}

func (m *Memory) RecordViolation(ctx context.Context, v memory.Violation) (_ memory.ViolationResult, _ error) {
	if m.note("RecordViolation"); m.RecordViolationFn == nil {
		return
	}
	return m.RecordViolationFn(ctx, v)
}

func (m *Memory) CountRuleStates(ctx context.Context, now time.Time) (_ map[string]int, _ error) {
	if m.note("CountRuleStates"); m.CountRuleStatesFn == nil {
		return
	}
	return m.CountRuleStatesFn(ctx, now)
}
func (m *Memory) Record(ctx context.Context, c engine.Correction) (memory.RecordResponse, bool, error) {
	m.note("Record")
	if m.RecordFn == nil {
		return memory.RecordResponse{}, false, nil
	}
	return m.RecordFn(ctx, c)
}

func (m *Memory) SyncRegistry(ctx context.Context, src registry.Source, opts memory.SyncOptions) (*registry.Registry, memory.Summary, error) {
	m.note("SyncRegistry")
	if m.SyncRegistryFn == nil {
		return nil, memory.Summary{}, unset("SyncRegistry")
	}
	return m.SyncRegistryFn(ctx, src, opts)
}

func (m *Memory) PlanRegistry(ctx context.Context, src registry.Source, opts memory.SyncOptions) (*registry.Registry, memory.RegistryPlan, error) {
	m.note("PlanRegistry")
	if m.PlanRegistryFn == nil {
		return nil, memory.RegistryPlan{}, unset("PlanRegistry")
	}
	return m.PlanRegistryFn(ctx, src, opts)
}

func (m *Memory) Now() time.Time {
	m.note("Now")
	if m.NowFn == nil {
		return time.Time{}
	}
	return m.NowFn()
}

func (m *Memory) Writable(ctx context.Context) error {
	m.note("Writable")
	if m.WritableFn == nil {
		return nil
	}
	return m.WritableFn(ctx)
}

// NoteError is not recorded by Called: the server notes every error it
// answers with.
func (m *Memory) NoteError(err error) {
	if m.NoteErrorFn != nil {
		m.NoteErrorFn(err)
	}
}

func (m *Memory) Embedder() models.Embedder { return m.Model }

func (m *Memory) Close() error {
	m.note("Close")
	if m.CloseFn == nil {
		return nil
	}
	return m.CloseFn()
}
