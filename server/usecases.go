package server

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/hooks"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/server/ui"
)

// The use cases the HTTP API runs on one tenant's memory, one interface
// per group of routes; *memory.Service satisfies every one (see Memory).
// Each method's errors are those of the memory.Service method of the same
// name, which the error table maps to statuses.

// Corrections are POST /v1/classify, POST /v1/corrections and the
// confirmations a correction in the confirm band waits in.
type Corrections interface {
	Classify(ctx context.Context, text string, scope engine.Scope) (classifier.Result, error)
	Record(ctx context.Context, c engine.Correction) (memory.RecordResponse, bool, error)
	ListConfirmations(ctx context.Context, status string, limit int) (memory.ConfirmationList, error)
	Confirm(ctx context.Context, id int64, action, ruleID string, pol engine.Polarity, at time.Time) (memory.ConfirmResult, error)
}

// Rules are /v1/rules: list, show and the history of a rule, add, edit,
// and the review of a candidate.
type Rules interface {
	ListRules(ctx context.Context, q memory.RulesQuery) (memory.RuleList, error)
	GetRule(ctx context.Context, id string, now time.Time) (engine.RuleView, error)
	History(ctx context.Context, id string, after int64, limit int) (memory.History, error)
	AddRule(ctx context.Context, n memory.NewRule) (engine.RuleView, error)
	EditRule(ctx context.Context, id string, p memory.RulePatch, at time.Time) (engine.RuleView, error)
	AcceptCandidate(ctx context.Context, id string, as memory.AcceptAs, at time.Time) (memory.AcceptedRule, error)
	ReviewCandidate(ctx context.Context, id string, accept bool, at time.Time) (engine.RuleView, error)
}

// Persona is GET /v1/persona and GET /v1/why: the review page's persona
// preview runs the same use cases.
type Persona = ui.Persona

// Learning is GET /v1/learned and POST /v1/events/{id}/retract.
type Learning interface {
	Learned(ctx context.Context, since time.Time, limit int) (memory.Learned, error)
	Retract(ctx context.Context, id int64, at time.Time) (memory.RetractResult, error)
}

// Registries are POST /v1/registry/sync and its dry run: the review
// page's registry preview and sync run the same use cases.
type Registries = ui.Registries

// Operation is what the server asks of a memory to run it: readiness,
// faults met by requests, the rule gauges of /metrics, the model served at
// /v1/models and /v1/embeddings, and closing it.
type Operation interface {
	// Writable is nil when the memory's store takes writes (/readyz).
	Writable(ctx context.Context) error
	// NoteError notes a fault of the store that err reports.
	NoteError(err error)
	CountRuleStates(ctx context.Context, now time.Time) (map[string]int, error)
	// Embedder is the model the memory classifies with.
	Embedder() models.Embedder
	Close() error
}

// Memory is every use case the server runs on one tenant's memory: the
// API's, the Claude Code hook route's (hooks.UseCases) and the review
// page's (ui.Memory).
type Memory interface {
	Corrections
	Rules
	Persona
	Learning
	Registries
	Operation
	hooks.UseCases
	ui.Memory
}

var _ Memory = (*memory.Service)(nil)
