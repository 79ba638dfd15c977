package server

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Page sizes of GET /v1/rules and GET /v1/rules/{id}/history.
const (
	DefaultRulesLimit   = 1000
	MaxRulesLimit       = 10000
	DefaultHistoryLimit = store.DefaultHistoryLimit
	MaxHistoryLimit     = store.MaxHistoryLimit
)

// RulesQuery selects rules: zero fields do not filter. Scope, when set,
// keeps the rules that apply in that context (wildcards included, other
// projects' and environments' rules never).
type RulesQuery struct {
	Category, Status, Source string
	Scope                    *engine.Scope
	Limit                    int // 0 means DefaultRulesLimit
	After                    string
	Now                      time.Time
}

// RuleList is the answer of GET /v1/rules (as `lexsona rules list --json`),
// plus NextAfter, the cursor of the next page when this one is full.
type RuleList struct {
	Rules     []engine.RuleView `json:"rules"`
	NextAfter string            `json:"next_after,omitempty"`
}

func (s *Server) listRules(ctx context.Context, q RulesQuery) (RuleList, error) {
	if q.Limit == 0 {
		q.Limit = DefaultRulesLimit
	}
	if q.Limit < 0 || q.Limit > MaxRulesLimit {
		return RuleList{}, engine.Errorf(engine.EINVALID, "limit %d: want 1 to %d", q.Limit, MaxRulesLimit)
	}
	f := store.RuleFilter{Category: q.Category, Source: q.Source, Scope: q.Scope, Limit: q.Limit, After: q.After}
	if q.Status != "" {
		st, err := engine.ParseStatus(q.Status)
		if err != nil {
			return RuleList{}, err
		}
		f.Status = st
	}
	cfg, err := s.db.Config(ctx)
	if err != nil {
		return RuleList{}, err
	}
	rules, err := s.db.ListRules(ctx, f)
	if err != nil {
		return RuleList{}, err
	}
	now := q.Now
	if now.IsZero() {
		now = s.cfg.Now()
	}
	out := RuleList{Rules: make([]engine.RuleView, len(rules))}
	for i, r := range rules {
		out.Rules[i] = engine.View(r, cfg, now)
	}
	if len(rules) == q.Limit {
		out.NextAfter = rules[len(rules)-1].RuleID
	}
	return out, nil
}

// GET /v1/rules?category=&status=&source=&environment=&project=&agent_family=&context_tags=&limit=&after=&now=
func (s *Server) handleListRules(c echo.Context) error {
	q := newQuery(c.QueryParams())
	rq := RulesQuery{
		Category: q.str("category"), Status: q.str("status"), Source: q.str("source"),
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
	out, err := s.listRules(c.Request().Context(), rq)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// getRule returns one rule's view at now.
func (s *Server) getRule(ctx context.Context, id string, now time.Time) (engine.RuleView, error) {
	if err := engine.ValidateRuleID(id); err != nil {
		return engine.RuleView{}, err
	}
	r, err := s.db.GetRule(ctx, id)
	if err != nil {
		return engine.RuleView{}, err
	}
	cfg, err := s.db.Config(ctx)
	if err != nil {
		return engine.RuleView{}, err
	}
	if now.IsZero() {
		now = s.cfg.Now()
	}
	return engine.View(r, cfg, now), nil
}

// GET /v1/rules/{id}?now=
func (s *Server) handleGetRule(c echo.Context) error {
	q := newQuery(c.QueryParams())
	now := q.time("now", s.cfg.Now())
	if err := q.done(); err != nil {
		return err
	}
	v, err := s.getRule(c.Request().Context(), c.Param("id"), now)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

// History is the answer of GET /v1/rules/{id}/history: events in the order
// they were recorded (event id), and the cursor of the next page when this
// one is full.
type History struct {
	RuleID    string         `json:"rule_id"`
	Events    []engine.Event `json:"events"`
	NextAfter int64          `json:"next_after,omitempty"`
}

func (s *Server) history(ctx context.Context, id string, after int64, limit int) (History, error) {
	evs, err := s.db.History(ctx, id, after, limit)
	if err != nil {
		return History{}, err
	}
	h := History{RuleID: id, Events: evs}
	if h.Events == nil {
		h.Events = []engine.Event{}
	}
	if len(evs) == limit && limit > 0 {
		h.NextAfter = evs[len(evs)-1].EventID
	}
	return h, nil
}

// GET /v1/rules/{id}/history?limit=&after=
func (s *Server) handleHistory(c echo.Context) error {
	q := newQuery(c.QueryParams())
	limit := q.intIn("limit", DefaultHistoryLimit, 1, MaxHistoryLimit)
	after := q.int64Min("after", 0, 0)
	if err := q.done(); err != nil {
		return err
	}
	h, err := s.history(c.Request().Context(), c.Param("id"), after, limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, h)
}
