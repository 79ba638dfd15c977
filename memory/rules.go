package memory

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Page sizes of ListRules and History.
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

// RuleList is a page of rules, plus NextAfter, the cursor of the next page
// when this one is full.
type RuleList struct {
	Rules     []engine.RuleView `json:"rules"`
	NextAfter string            `json:"next_after,omitempty"`
}

// ListRules returns the rules q selects, by id, assessed at q.Now (now when
// zero). Errors: EINVALID naming a bad limit, status, source or category.
func (s *Service) ListRules(ctx context.Context, q RulesQuery) (RuleList, error) {
	if q.Limit == 0 {
		q.Limit = DefaultRulesLimit
	}
	if q.Limit < 0 || q.Limit > MaxRulesLimit {
		return RuleList{}, engine.Errorf(engine.EINVALID, "limit %d: want 1 to %d", q.Limit, MaxRulesLimit)
	}
	f := store.RuleFilter{Category: q.Category, Source: q.Source, Scope: q.Scope, Limit: q.Limit, After: q.After}
	if q.Source != "" {
		if err := engine.ValidateSource(q.Source); err != nil {
			return RuleList{}, err
		}
	}
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
	now := s.at(q.Now)
	out := RuleList{Rules: make([]engine.RuleView, len(rules))}
	for i, r := range rules {
		out.Rules[i] = engine.View(r, cfg, now)
	}
	if len(rules) == q.Limit {
		out.NextAfter = rules[len(rules)-1].RuleID
	}
	return out, nil
}

// GetRule returns one rule assessed at now (zero: now); an id the rule had
// before a rename reaches it (followRename). Errors: EINVALID for a
// malformed id, ENOTFOUND for an unknown one.
func (s *Service) GetRule(ctx context.Context, id string, now time.Time) (engine.RuleView, error) {
	if err := engine.ValidateRuleID(id); err != nil {
		return engine.RuleView{}, err
	}
	r, err := followRename(ctx, s.db, id, func(id string) (engine.Rule, error) { return s.db.GetRule(ctx, id) })
	if err != nil {
		return engine.RuleView{}, err
	}
	return s.view(ctx, r, now)
}

// view assesses r at now (zero: now) under the stored config.
func (s *Service) view(ctx context.Context, r engine.Rule, now time.Time) (engine.RuleView, error) {
	cfg, err := s.db.Config(ctx)
	if err != nil {
		return engine.RuleView{}, err
	}
	return engine.View(r, cfg, s.at(now)), nil
}

// History is a page of a rule's events in the order they were recorded
// (event id), and the cursor of the next page when this one is full.
type History struct {
	RuleID    string         `json:"rule_id"`
	Events    []engine.Event `json:"events"`
	NextAfter int64          `json:"next_after,omitempty"`
}

// History returns up to limit (0: DefaultHistoryLimit) events of rule id
// after event id after; an id the rule had before a rename reaches it.
// Errors: EINVALID for a malformed id or a limit out of 1…MaxHistoryLimit;
// ENOTFOUND for an unknown rule.
func (s *Service) History(ctx context.Context, id string, after int64, limit int) (History, error) {
	if limit == 0 {
		limit = DefaultHistoryLimit
	}
	if limit < 0 || limit > MaxHistoryLimit {
		return History{}, engine.Errorf(engine.EINVALID, "history limit %d: want 1 to %d", limit, MaxHistoryLimit)
	}
	h, err := followRename(ctx, s.db, id, func(id string) (History, error) {
		evs, err := s.db.History(ctx, id, after, limit)
		return History{RuleID: id, Events: evs}, err
	})
	if err != nil {
		return History{}, err
	}
	evs := h.Events
	if h.Events == nil {
		h.Events = []engine.Event{}
	}
	if len(evs) == limit {
		h.NextAfter = evs[len(evs)-1].EventID
	}
	return h, nil
}

// RuleHistory is a rule now and its events, for `why ID` and explain_rule.
type RuleHistory struct {
	Rule      engine.RuleView `json:"rule"`
	History   []engine.Event  `json:"history"`
	NextAfter int64           `json:"next_after,omitempty"`
}

// ExplainRule returns rule id assessed at now and its first limit events
// (0: DefaultHistoryLimit; -1: every event). Errors: GetRule's and History's.
func (s *Service) ExplainRule(ctx context.Context, id string, now time.Time, limit int) (RuleHistory, error) {
	v, err := s.GetRule(ctx, id, now)
	if err != nil {
		return RuleHistory{}, err
	}
	out := RuleHistory{Rule: v, History: []engine.Event{}}
	page, after := limit, int64(0)
	if limit < 0 {
		page = MaxHistoryLimit
	}
	for {
		h, err := s.History(ctx, v.RuleID, after, page)
		if err != nil {
			return RuleHistory{}, err
		}
		out.History = append(out.History, h.Events...)
		if limit >= 0 || h.NextAfter == 0 {
			out.NextAfter = h.NextAfter
			return out, nil
		}
		after = h.NextAfter
	}
}
