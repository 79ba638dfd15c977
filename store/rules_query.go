package store

import (
	"context"

	"github.com/lexsona/lexsona/engine"
)

// GetRule returns the rule with that id: EINVALID for a malformed id,
// ENOTFOUND naming an unknown one.
func (db *DB) GetRule(ctx context.Context, id string) (engine.Rule, error) {
	row, err := getRule(db.reader(ctx), id)
	return row.Rule, err
}

// RuleFilter selects rules for ListRules. Zero fields do not filter.
type RuleFilter struct {
	Category string
	Status   engine.Status
	// Scope keeps the rules that apply in that context (engine.Scope.Matches).
	Scope  *engine.Scope
	Source string
	// Limit caps the result (0: no cap); After is a rule_id cursor: only ids
	// after it, so the next page starts after the last id of this one.
	Limit int
	After string
}

// ListRules returns the rules f selects, ordered by rule_id. Errors: EINVALID
// naming a malformed category, status, an unknown source, a malformed scope
// or a negative limit.
func (db *DB) ListRules(ctx context.Context, f RuleFilter) ([]engine.Rule, error) {
	q := RuleQuery{Source: f.Source, After: f.After}
	if f.Category != "" {
		if err := engine.ValidateCategory(f.Category); err != nil {
			return nil, err
		}
		q.Category = f.Category
	}
	if f.Status != "" {
		st, err := engine.ParseStatus(string(f.Status))
		if err != nil {
			return nil, err
		}
		q.Status = st
	}
	if f.Source != "" {
		if err := engine.ValidateSource(f.Source); err != nil {
			return nil, err
		}
	}
	if f.Limit < 0 {
		return nil, engine.Errorf(engine.EINVALID, "limit %d: want 0 (no limit) or more", f.Limit)
	}
	if f.Scope == nil {
		q.Limit = f.Limit
		return db.reader(ctx).Rules(q)
	}
	scope, err := engine.ParseScope(*f.Scope)
	if err != nil {
		return nil, err
	}
	q.Scope = &scope
	rules, err := db.reader(ctx).Rules(q)
	if err != nil {
		return nil, err
	}
	out := rules[:0]
	for _, r := range rules {
		if !r.Scope.Matches(scope) {
			continue
		}
		out = append(out, r)
		if f.Limit > 0 && len(out) == f.Limit {
			break
		}
	}
	return out, nil
}
