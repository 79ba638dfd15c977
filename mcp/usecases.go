package mcp

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/memory"
)

// The use cases the tools run on one tenant's memory, one interface per
// group of tools; *memory.Service satisfies every one (see Memory). Each
// method's errors are those of the memory.Service method of the same name,
// which a tool shows as "code: message".

// Corrections are classify_correction, record_correction,
// list_confirmations and resolve_confirmation.
type Corrections interface {
	Classify(ctx context.Context, text string, scope engine.Scope) (classifier.Result, error)
	Record(ctx context.Context, c engine.Correction) (memory.RecordResponse, bool, error)
	ListConfirmations(ctx context.Context, status string, limit int) (memory.ConfirmationList, error)
	Confirm(ctx context.Context, id int64, action, ruleID string, pol engine.Polarity, at time.Time) (memory.ConfirmResult, error)
}

// Rules are list_rules, explain_rule, add_rule and review_candidate.
type Rules interface {
	ListRules(ctx context.Context, q memory.RulesQuery) (memory.RuleList, error)
	ExplainRule(ctx context.Context, id string, now time.Time, limit int) (memory.RuleHistory, error)
	AddRule(ctx context.Context, n memory.NewRule) (engine.RuleView, error)
	ReviewCandidate(ctx context.Context, id string, accept bool, at time.Time) (engine.RuleView, error)
}

// Persona is get_persona.
type Persona interface {
	Persona(ctx context.Context, req memory.PersonaRequest) (engine.Snapshot, error)
}

// Learning is list_learned and retract_event.
type Learning interface {
	Learned(ctx context.Context, since time.Time, limit int) (memory.Learned, error)
	Retract(ctx context.Context, id int64, at time.Time) (memory.RetractResult, error)
}

// Memory is every use case the tools run on one tenant's memory, and the
// note of a fault of its store that a tool call met.
type Memory interface {
	Corrections
	Rules
	Persona
	Learning
	NoteError(err error)
}

var _ Memory = (*memory.Service)(nil)

// Tenants are the memories the tools work on, by tenant name, and the
// pruning of old idempotency keys; tenantMemories (over tenant.Memories)
// is the server's.
type Tenants interface {
	// Get returns tenant name's memory (tenant.Default: the default
	// tenant's), opening a named one on first use. Errors: those of
	// tenant.Memories.Get (EUNAVAILABLE when it cannot be opened now).
	Get(ctx context.Context, name string) (Memory, error)
	// Default is the default tenant's memory.
	Default() Memory
	// StartPruner deletes idempotency keys older than ttl, hourly, until
	// stop is called.
	StartPruner(ttl time.Duration) (stop func())
	// Close closes the named tenants' memories.
	Close() error
}

// tenantMemories are mcp's Tenants: tenant.Memories, whose
// memories are *memory.Service.
type tenantMemories struct{ *tenant.Memories }

func (t tenantMemories) Get(ctx context.Context, name string) (Memory, error) {
	m, err := t.Memories.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	return m, nil
}

func (t tenantMemories) Default() Memory { return t.Memories.Default() }
