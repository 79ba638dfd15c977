package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/memory"
)

// Page sizes of GET /v1/rules and GET /v1/rules/{id}/history.
const (
	DefaultRulesLimit   = memory.DefaultRulesLimit
	MaxRulesLimit       = memory.MaxRulesLimit
	DefaultHistoryLimit = memory.DefaultHistoryLimit
	MaxHistoryLimit     = memory.MaxHistoryLimit
)

// GET /v1/rules?category=&status=&source=&environment=&project=&agent_family=&context_tags=&limit=&after=&now=
func (s *Server) handleListRules(c echo.Context) error {
	q := newQuery(c.QueryParams())
	rq := memory.RulesQuery{
		Category: q.str("category"), Status: q.typed("status"), Source: q.typed("source"),
		Limit: q.intIn("limit", DefaultRulesLimit, 1, MaxRulesLimit), After: q.str("after"),
		Now: q.time("now", s.cfg.Now()),
	}
	if q.has(scopeParams...) {
		sc := q.scope()
		rq.Scope = &sc
	}
	if err := q.done(); err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	out, err := mem.ListRules(c.Request().Context(), rq)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// GET /v1/rules/{id}?now=
func (s *Server) handleGetRule(c echo.Context) error {
	q := newQuery(c.QueryParams())
	now := q.time("now", s.cfg.Now())
	if err := q.done(); err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	v, err := mem.GetRule(c.Request().Context(), c.Param("id"), now)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

// GET /v1/rules/{id}/history?limit=&after=
func (s *Server) handleHistory(c echo.Context) error {
	q := newQuery(c.QueryParams())
	limit := q.intIn("limit", DefaultHistoryLimit, 1, MaxHistoryLimit)
	after := q.int64Min("after", 0, 0)
	if err := q.done(); err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	h, err := mem.History(c.Request().Context(), c.Param("id"), after, limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, h)
}

// The answers of the rule routes (GET /v1/rules, GET /v1/rules/{id}/history):
// memory's types, as the OpenAPI document names them.
type (
	RuleList = memory.RuleList
	History  = memory.History
)
