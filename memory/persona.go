package memory

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// MaxSnapshotRules bounds a persona's Max.
const MaxSnapshotRules = 10000

// PersonaRequest asks for the persona of one context at Now (zero: now);
// Max 0 means the configured number of rules.
type PersonaRequest struct {
	Scope          engine.Scope
	Now            time.Time
	Max            int
	IncludeDormant bool
	// Trace adds every rule's decision (why it is in or out).
	Trace bool
}

// Persona builds the snapshot of a context: its active rules after conflict
// resolution, the cut, the losers, and the prompt block. Errors: EINVALID
// for a bad scope or a Max out of 0…MaxSnapshotRules.
func (s *Service) Persona(ctx context.Context, req PersonaRequest) (engine.Snapshot, error) {
	if req.Max < 0 || req.Max > MaxSnapshotRules {
		return engine.Snapshot{}, engine.Errorf(engine.EINVALID, "max %d: want 1 to %d (0 for the configured default)", req.Max, MaxSnapshotRules)
	}
	return Snapshot(ctx, s.db, engine.SnapshotRequest{
		Scope: req.Scope, Now: s.at(req.Now), Max: req.Max, IncludeDormant: req.IncludeDormant, Trace: req.Trace,
	})
}

// Why explains the persona of scope at now (zero: now) rule by rule: every
// rule of the store — in the persona, lost to a conflict, inactive, dormant,
// a candidate and what it waits for, scoped elsewhere, archived — with the
// reason and how many more corrections it needs (engine.Explain). Errors:
// EINVALID for a bad scope.
func (s *Service) Why(ctx context.Context, scope engine.Scope, now time.Time) (engine.Why, error) {
	sc, err := engine.ParseScope(scope)
	if err != nil {
		return engine.Why{}, err
	}
	cfg, err := s.db.Config(ctx)
	if err != nil {
		return engine.Why{}, err
	}
	rules, err := s.db.ListRules(ctx, store.RuleFilter{})
	if err != nil {
		return engine.Why{}, err
	}
	return engine.Explain(rules, engine.SnapshotRequest{Scope: sc, Now: s.at(now)}, cfg), nil
}
