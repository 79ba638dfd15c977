package hooks

import (
	"context"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// UseCases are what the hooks need from LexSona: the memory service's use
// cases that a front end runs for an agent's events. *memory.Service
// satisfies it; the command hook's spooling front end wraps it. Persona,
// Review and Enforce must not need the embedder, so that SessionStart and
// PreToolUse stay fast.
type UseCases interface {
	Persona(ctx context.Context, req memory.PersonaRequest) (engine.Snapshot, error)
	// Capture is the correction gate, then the classifier, then what the
	// decision calls for (memory.Service.Capture).
	Capture(ctx context.Context, c engine.Correction) (memory.CaptureResponse, error)
	// Review counts what waits in the inbox for scope's project.
	Review(ctx context.Context, scope engine.Scope) (memory.ReviewCount, error)
	// Enforce decides whether a tool call breaks a must rule in force.
	Enforce(ctx context.Context, scope engine.Scope, tool string, input map[string]any) (*memory.Denial, error)
	// RecordViolation keeps a denied call on its rule's receipts.
	RecordViolation(ctx context.Context, v memory.Violation) (memory.ViolationResult, error)
}

// ScopeFunc is the scope of the session an event comes from, chosen by the
// front end: the command hook, which runs as the user inside the project,
// detects it from the project's files (DetectScope); the service's route
// never reads its own files on a caller's say-so (CwdScope,
// DetectScopeWithin).
type ScopeFunc func(ctx context.Context, ev Event) (engine.Scope, error)

// persona is the persona block of scope, "" when no rule is in force.
func persona(ctx context.Context, uc UseCases, scope engine.Scope) (string, error) {
	snap, err := uc.Persona(ctx, memory.PersonaRequest{Scope: scope})
	if err != nil || len(snap.Rules) == 0 {
		return "", err
	}
	return snap.Prompt, nil
}
