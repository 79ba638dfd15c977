package server

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
)

// MaxSnapshotRules bounds a persona's max parameter.
const MaxSnapshotRules = 10000

// PersonaRequest asks for the persona of one context.
type PersonaRequest struct {
	Scope          engine.Scope
	Now            time.Time
	Max            int
	IncludeDormant bool
}

// persona builds the snapshot of a context (its rules, cut, losers, prompt).
func (s *Server) persona(ctx context.Context, req PersonaRequest) (engine.Snapshot, error) {
	if req.Max < 0 || req.Max > MaxSnapshotRules {
		return engine.Snapshot{}, engine.Errorf(engine.EINVALID, "max %d: want 1 to %d (0 for the configured default)", req.Max, MaxSnapshotRules)
	}
	if req.Now.IsZero() {
		req.Now = s.cfg.Now()
	}
	return s.db.Snapshot(ctx, engine.SnapshotRequest{
		Scope: req.Scope, Now: req.Now.UTC(), Max: req.Max, IncludeDormant: req.IncludeDormant,
	})
}

// GET /v1/persona?environment=&project=&agent_family=&context_tags=a,b&now=&max=&include_dormant=&format=json|prompt
func (s *Server) handlePersona(c echo.Context) error {
	q := newQuery(c.QueryParams())
	req := PersonaRequest{
		Scope: q.scope(), Now: q.time("now", s.cfg.Now()), Max: q.intIn("max", 0, 0, MaxSnapshotRules),
		IncludeDormant: q.bool("include_dormant"),
	}
	format := q.oneOf("format", "json", "json", "prompt")
	if err := q.done(); err != nil {
		return err
	}
	snap, err := s.persona(c.Request().Context(), req)
	if err != nil {
		return err
	}
	if format == "prompt" {
		return c.Blob(http.StatusOK, "text/markdown; charset=utf-8", []byte(snap.Prompt))
	}
	return c.JSON(http.StatusOK, snap)
}

// WhyScope is the answer of GET /v1/why (as `lexsona why --json` with scope
// flags): every rule's decision for the context, the winners and the
// conflict losers with the deciding criterion.
type WhyScope struct {
	Scope     engine.Scope      `json:"scope"`
	Winners   []string          `json:"winners"`
	Losers    []engine.Loss     `json:"losers"`
	Decisions []engine.Decision `json:"decisions"`
}

// why traces the snapshot of a context.
func (s *Server) why(ctx context.Context, scope engine.Scope, now time.Time) (WhyScope, error) {
	if now.IsZero() {
		now = s.cfg.Now()
	}
	snap, err := s.db.Snapshot(ctx, engine.SnapshotRequest{Scope: scope, Now: now.UTC(), Trace: true})
	if err != nil {
		return WhyScope{}, err
	}
	out := WhyScope{Scope: snap.Scope, Winners: []string{}, Losers: snap.Losers, Decisions: snap.Decisions}
	if out.Losers == nil {
		out.Losers = []engine.Loss{}
	}
	if out.Decisions == nil {
		out.Decisions = []engine.Decision{}
	}
	for _, r := range snap.Rules {
		out.Winners = append(out.Winners, r.RuleID)
	}
	return out, nil
}

// GET /v1/why?environment=&project=&agent_family=&context_tags=&now=
func (s *Server) handleWhy(c echo.Context) error {
	q := newQuery(c.QueryParams())
	scope, now := q.scope(), q.time("now", s.cfg.Now())
	if err := q.done(); err != nil {
		return err
	}
	out, err := s.why(c.Request().Context(), scope, now)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}
