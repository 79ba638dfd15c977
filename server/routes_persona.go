package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// MaxSnapshotRules bounds a persona's max parameter.
const MaxSnapshotRules = memory.MaxSnapshotRules

// GET /v1/persona?environment=&project=&agent_family=&context_tags=a,b&now=&max=&include_dormant=&format=json|prompt
func (s *Server) handlePersona(c echo.Context) error {
	q := newQuery(c.QueryParams())
	req := memory.PersonaRequest{
		Scope: q.scope(), Now: q.time("now", s.cfg.Now()), Max: q.intIn("max", 0, 0, MaxSnapshotRules),
		IncludeDormant: q.bool("include_dormant"),
	}
	format := q.oneOf("format", "json", "json", "prompt")
	if err := q.done(); err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	snap, err := mem.Persona(c.Request().Context(), req)
	if err != nil {
		return err
	}
	if format == "prompt" {
		return c.Blob(http.StatusOK, "text/markdown; charset=utf-8", []byte(snap.Prompt))
	}
	return c.JSON(http.StatusOK, snap)
}

// GET /v1/why?environment=&project=&agent_family=&context_tags=&now=
func (s *Server) handleWhy(c echo.Context) error {
	q := newQuery(c.QueryParams())
	scope, now := q.scope(), q.time("now", s.cfg.Now())
	if err := q.done(); err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	out, err := mem.Why(c.Request().Context(), scope, now)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// WhyScope is the answer of GET /v1/why: every rule's decision for the
// context (engine.Explain).
type WhyScope = engine.Why
