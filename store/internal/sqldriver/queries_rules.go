package sqldriver

import (
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// The rules and their events, exception links and rejections.

func (x Queries[C]) rules(op, q string, args ...any) ([]engine.Rule, error) {
	tags := x.S.d.Tags
	return Collect(x.C.Query, op, q, args, func(sc Scanner) (engine.Rule, error) { return ScanRule(sc, tags) })
}

func (x Queries[C]) Rule(id string) (store.RuleRow, bool, error) {
	row, err := ScanRuleRow(x.C.QueryRow(x.S.ruleGet, id), x.S.d.Tags)
	if err != nil {
		found, err := x.scanned("load rule "+id, err) // op built only for an error
		return store.RuleRow{}, found, err
	}
	return row, true, nil
}

func (x Queries[C]) RuleExists(id string) (bool, error) {
	var n int
	_, err := x.row("look up rule "+id, x.S.ruleExists, []any{id}, &n)
	return n > 0, err
}

func (x Queries[C]) Rules(q store.RuleQuery) ([]engine.Rule, error) {
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return x.S.d.param(len(args))
	}
	for _, f := range []struct{ col, v string }{
		{"category", q.Category}, {"status", string(q.Status)}, {"source", q.Source},
	} {
		if f.v != "" {
			where = append(where, f.col+" = "+arg(f.v))
		}
	}
	if q.After != "" {
		where = append(where, "rule_id > "+arg(q.After))
	}
	if s := q.Scope; s != nil {
		where = append(where, "(scope_environment IS NULL OR scope_environment = "+arg(s.Environment)+
			") AND (scope_project IS NULL OR scope_project = "+arg(s.Project)+
			") AND (scope_agent_family IS NULL OR scope_agent_family = "+arg(s.AgentFamily)+")")
	}
	sqlText := "SELECT " + ruleCols + " FROM persona_rules"
	if len(where) > 0 {
		sqlText += " WHERE " + strings.Join(where, " AND ")
	}
	sqlText += " ORDER BY rule_id"
	if q.Limit > 0 {
		sqlText += " LIMIT " + arg(q.Limit)
	}
	return x.rules("list rules", sqlText, args...)
}

func (x Queries[C]) RuleStates() ([]store.RuleState, error) {
	return Collect(x.C.Query, "read rule states", x.S.ruleStates, nil, ScanRuleState)
}

func (x Queries[C]) ActiveRules() ([]engine.Rule, error) {
	return x.rules("load active rules", x.S.activeRules)
}

func (x Queries[C]) RulesChangedSince(v int64) ([]engine.Rule, error) {
	return x.rules("load changed rules", x.S.changedRules, v)
}

func (x Queries[C]) RulesRemovedSince(v int64) ([]string, error) {
	return Collect(x.C.Query, "load removed rules", x.S.removedRules, []any{v}, ScanString)
}

func (x Queries[C]) Versions() (store.Versions, error) {
	var v store.Versions
	_, err := x.row("read versions", x.S.versions, nil, &v.Rules, &v.Config, &v.Embeddings)
	return v, err
}

func (x Queries[C]) InsertRule(row store.RuleRow, at time.Time) error {
	return x.later("insert rule "+row.RuleID, x.S.ruleInsert, InsertRuleArgs(&row, x.S.d.Tags, at)...)
}

func (x Queries[C]) UpdateRule(row store.RuleRow, at time.Time) (bool, error) {
	return x.affected("save rule "+row.RuleID, x.S.ruleUpdate, UpdateRuleArgs(&row, x.S.d.Tags, at)...)
}

func (x Queries[C]) UpdateEvidence(r engine.Rule, at time.Time) error {
	return x.later("save evidence of "+r.RuleID, x.S.ruleEvidence, EvidenceArgs(&r, at)...)
}

func (x Queries[C]) SetStatus(id string, status engine.Status, archivedBy string, at time.Time) error {
	return x.later("set status of "+id, x.S.ruleStatus, string(status), NullStr(archivedBy), FormatTime(at), id)
}

// RenameRule changes the id; foreign keys cascade it to events, texts,
// embeddings, rejections and exception links.
func (x Queries[C]) RenameRule(from, to string) error {
	return x.later("rename rule", x.S.ruleRename, to, from)
}

// RuleAlias returns the id of the rule that old was renamed or merged into.
func (x Queries[C]) RuleAlias(old string) (string, bool, error) {
	var id string
	found, err := x.row("look up alias "+old, x.S.aliasGet, []any{old}, &id)
	return id, found, err
}

func (x Queries[C]) RuleAliases() ([]store.RuleAlias, error) {
	return Collect(x.C.Query, "read aliases", x.S.aliasesAll, nil, func(sc Scanner) (store.RuleAlias, error) {
		var a store.RuleAlias
		return a, sc.Scan(&a.OldID, &a.RuleID)
	})
}

func (x Queries[C]) PutRuleAlias(old, ruleID string, at time.Time) error {
	return x.later("record alias "+old, x.S.aliasPut, old, ruleID, FormatTime(at))
}

func (x Queries[C]) DeleteRuleAlias(old string) error {
	return x.later("forget alias "+old, x.S.aliasDelete, old)
}

func (x Queries[C]) DeleteRule(id string) error {
	return x.later("delete rule "+id, x.S.ruleDelete, id)
}

func (x Queries[C]) Events(ruleID string, afterID int64, limit int) ([]engine.Event, error) {
	return Collect(x.C.Query, "read history", x.S.eventsPage, []any{ruleID, afterID, limit}, ScanEvent)
}

// InsertEvent appends ev and sets its EventID.
func (x Queries[C]) InsertEvent(ev *engine.Event) (int64, error) {
	id, err := x.C.InsertID("append event", x.S.eventInsert, EventArgs(ev)...)
	if err != nil {
		return 0, err
	}
	ev.EventID = id
	return id, nil
}

// LaterEvent queues the insert of ev under the id the caller numbered it
// with (Conn.Later) and sets its EventID: for a driver whose write
// transactions number their events.
func (x Queries[C]) LaterEvent(ev *engine.Event, id int64) error {
	if err := x.later("append event", x.S.eventInsertID, append(EventArgs(ev), id)...); err != nil {
		return err
	}
	ev.EventID = id
	return nil
}

// CounterexampleTags reads the counts a trigger keeps as counterexamples are
// appended (see the migrations).
func (x Queries[C]) CounterexampleTags(ruleID string) (map[string]int, error) {
	return CountTags(x.C.Query, "read counterexample tags", x.S.counterTags, []any{ruleID})
}

func (x Queries[C]) ExceptionTags(parentID string) ([]string, error) {
	return Collect(x.C.Query, "read exception tags", x.S.proposedTags, []any{parentID}, ScanString)
}

func (x Queries[C]) PutRejection(parentID, tag string, at time.Time) error {
	return x.later("reject exception", x.S.rejectionPut, parentID, tag, FormatTime(at))
}

func (x Queries[C]) DeleteRejection(parentID, tag string) error {
	return x.later("forget exception rejection", x.S.rejectionDelete, parentID, tag)
}

// MoveRuleRows moves from's vectors (into's texts must exist: the caller
// copies them first), events, exception links, rejections and aliases to
// into.
func (x Queries[C]) MoveRuleRows(from, into string) error {
	for _, step := range []struct{ what, q string }{
		{"move embeddings", x.S.embeddingsMove}, {"move events", x.S.eventsMove},
		{"move exceptions", x.S.exceptionsMove}, {"move rejections", x.S.rejectionsMove},
		{"move aliases", x.S.aliasesMove},
	} {
		if err := x.later("merge: "+step.what, step.q, into, from); err != nil {
			return err
		}
	}
	return nil
}
