package store

import (
	"context"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// GetRule returns the rule with that id: EINVALID for a malformed id,
// ENOTFOUND naming an unknown one.
func (db *DB) GetRule(ctx context.Context, id string) (engine.Rule, error) {
	return getRule(db.reader(ctx), id)
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
	var where []string
	var args []any
	if f.Category != "" {
		if err := engine.ValidateCategory(f.Category); err != nil {
			return nil, err
		}
		where, args = append(where, "category = ?"), append(args, f.Category)
	}
	if f.Status != "" {
		st, err := engine.ParseStatus(string(f.Status))
		if err != nil {
			return nil, err
		}
		where, args = append(where, "status = ?"), append(args, string(st))
	}
	if f.Source != "" {
		if err := engine.ValidateSource(f.Source); err != nil {
			return nil, err
		}
		where, args = append(where, "source = ?"), append(args, f.Source)
	}
	if f.After != "" {
		where, args = append(where, "rule_id > ?"), append(args, f.After)
	}
	if f.Limit < 0 {
		return nil, engine.Errorf(engine.EINVALID, "limit %d: want 0 (no limit) or more", f.Limit)
	}
	var scope engine.Scope
	if f.Scope != nil {
		s, err := engine.ParseScope(*f.Scope)
		if err != nil {
			return nil, err
		}
		scope = s
		w, a := scopePrefilter(s)
		where, args = append(where, w), append(args, a...)
	}
	q := "SELECT " + ruleCols + " FROM persona_rules"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY rule_id"
	if f.Limit > 0 && f.Scope == nil {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, dbErr("list rules", err)
	}
	defer rows.Close()
	out := []engine.Rule{}
	for rows.Next() {
		r, err := scanRule(rows)
		if err != nil {
			return nil, dbErr("list rules", err)
		}
		if f.Scope != nil && !r.Scope.Matches(scope) {
			continue
		}
		out = append(out, r)
		if f.Limit > 0 && len(out) == f.Limit {
			break
		}
	}
	return out, dbErr("list rules", rows.Err())
}

// scopePrefilter is the SQL half of engine.Scope.Matches: each scope column
// is a wildcard (NULL) or equal to the request's. Tags are checked in Go.
func scopePrefilter(s engine.Scope) (string, []any) {
	return `(scope_environment IS NULL OR scope_environment = ?) AND (scope_project IS NULL OR scope_project = ?)
		AND (scope_agent_family IS NULL OR scope_agent_family = ?)`, []any{s.Environment, s.Project, s.AgentFamily}
}
