package ui

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/registry"
)

// The use cases the review page runs, one interface per group of pages;
// *memory.Service satisfies every one (see Memory). Each method's errors
// are those of the memory.Service method of the same name.

// Inbox is what the inbox shows and resolves: pending confirmations and
// candidate rules (the page at "/").
type Inbox interface {
	ListConfirmations(ctx context.Context, status string, limit int) (memory.ConfirmationList, error)
	Confirm(ctx context.Context, id int64, action, ruleID string, pol engine.Polarity, at time.Time) (memory.ConfirmResult, error)
	AcceptCandidate(ctx context.Context, id string, as memory.AcceptAs, at time.Time) (memory.AcceptedRule, error)
	ReviewCandidate(ctx context.Context, id string, accept bool, at time.Time) (engine.RuleView, error)
}

// Rules are the rules pages: the list, one rule's receipts and chart, and
// the changes a person makes to a rule.
type Rules interface {
	ListRules(ctx context.Context, q memory.RulesQuery) (memory.RuleList, error)
	GetRule(ctx context.Context, id string, now time.Time) (engine.RuleView, error)
	History(ctx context.Context, id string, after int64, limit int) (memory.History, error)
	Config(ctx context.Context) (engine.Config, error)
	EditRule(ctx context.Context, id string, p memory.RulePatch, at time.Time) (engine.RuleView, error)
	ArchiveRule(ctx context.Context, id string, at time.Time) (engine.RuleView, error)
	MergeRule(ctx context.Context, from, into string, at time.Time) (engine.RuleView, error)
}

// Persona is the persona preview: the rules in force for a scope and why
// each other rule is out.
type Persona interface {
	Persona(ctx context.Context, req memory.PersonaRequest) (engine.Snapshot, error)
	Why(ctx context.Context, scope engine.Scope, now time.Time) (engine.Why, error)
}

// Learning is the page of what was learned recently, and the retraction
// of a recorded event.
type Learning interface {
	Now() time.Time
	Learned(ctx context.Context, since time.Time, limit int) (memory.Learned, error)
	Retract(ctx context.Context, id int64, at time.Time) (memory.RetractResult, error)
}

// Registries are the registry page's preview and sync of an uploaded
// registry.
type Registries interface {
	PlanRegistry(ctx context.Context, src registry.Source, opts memory.SyncOptions) (*registry.Registry, memory.RegistryPlan, error)
	SyncRegistry(ctx context.Context, src registry.Source, opts memory.SyncOptions) (*registry.Registry, memory.Summary, error)
}

// Memory is every use case the review page runs on one tenant's memory.
type Memory interface {
	Inbox
	Rules
	Persona
	Learning
	Registries
}

var _ Memory = (*memory.Service)(nil)
