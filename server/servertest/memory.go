package servertest

import (
	"context"
	"sync"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
)

// Memory is a fake of the use cases the front ends declare (server.Memory,
// ui.Memory, mcp.Memory), for tests of a front end alone: its routing,
// decoding, statuses, error mapping and authorisation. Each method calls
// its …Fn field when the test set it; otherwise it answers the zero value
// and no error, but for SyncRegistry and PlanRegistry, which have no zero
// answer and fail with EUNAVAILABLE. Every call is recorded by name
// (Called). Model is what Embedder returns. Safe for concurrent use.
type Memory struct {
	Model models.Embedder

	ClassifyFn          func(ctx context.Context, text string, scope engine.Scope) (classifier.Result, error)
	RecordFn            func(ctx context.Context, c engine.Correction) (memory.RecordResponse, bool, error)
	ListConfirmationsFn func(ctx context.Context, status string, limit int) (memory.ConfirmationList, error)
	ConfirmFn           func(ctx context.Context, id int64, action, ruleID string, pol engine.Polarity, at time.Time) (memory.ConfirmResult, error)

	ListRulesFn       func(ctx context.Context, q memory.RulesQuery) (memory.RuleList, error)
	GetRuleFn         func(ctx context.Context, id string, now time.Time) (engine.RuleView, error)
	HistoryFn         func(ctx context.Context, id string, after int64, limit int) (memory.History, error)
	ExplainRuleFn     func(ctx context.Context, id string, now time.Time, limit int) (memory.RuleHistory, error)
	AddRuleFn         func(ctx context.Context, n memory.NewRule) (engine.RuleView, error)
	EditRuleFn        func(ctx context.Context, id string, p memory.RulePatch, at time.Time) (engine.RuleView, error)
	ArchiveRuleFn     func(ctx context.Context, id string, at time.Time) (engine.RuleView, error)
	MergeRuleFn       func(ctx context.Context, from, into string, at time.Time) (engine.RuleView, error)
	AcceptCandidateFn func(ctx context.Context, id string, as memory.AcceptAs, at time.Time) (memory.AcceptedRule, error)
	ReviewCandidateFn func(ctx context.Context, id string, accept bool, at time.Time) (engine.RuleView, error)
	ConfigFn          func(ctx context.Context) (engine.Config, error)

	PersonaFn func(ctx context.Context, req memory.PersonaRequest) (engine.Snapshot, error)
	WhyFn     func(ctx context.Context, scope engine.Scope, now time.Time) (engine.Why, error)

	NowFn     func() time.Time
	LearnedFn func(ctx context.Context, since time.Time, limit int) (memory.Learned, error)
	RetractFn func(ctx context.Context, id int64, at time.Time) (memory.RetractResult, error)

	SyncRegistryFn func(ctx context.Context, src registry.Source, opts memory.SyncOptions) (*registry.Registry, memory.Summary, error)
	PlanRegistryFn func(ctx context.Context, src registry.Source, opts memory.SyncOptions) (*registry.Registry, memory.RegistryPlan, error)

	CaptureFn         func(ctx context.Context, c engine.Correction) (memory.CaptureResponse, error)
	ReviewFn          func(ctx context.Context, scope engine.Scope) (memory.ReviewCount, error)
	EnforceFn         func(ctx context.Context, scope engine.Scope, tool string, input map[string]any) (*memory.Denial, error)
	RecordViolationFn func(ctx context.Context, v memory.Violation) (memory.ViolationResult, error)

	WritableFn        func(ctx context.Context) error
	NoteErrorFn       func(err error)
	CountRuleStatesFn func(ctx context.Context, now time.Time) (map[string]int, error)
	CloseFn           func() error

	mu    sync.Mutex
	calls []string
}

// Called returns the names of the methods called so far, in order.
func (m *Memory) Called() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.calls...)
}

func (m *Memory) note(name string) {
	m.mu.Lock()
	m.calls = append(m.calls, name)
	m.mu.Unlock()
}

// unset is the error of a method that has no zero answer.
func unset(name string) error {
	return engine.Errorf(engine.EUNAVAILABLE, "servertest.Memory: %s is not set in this test", name)
}
