package postgres

import (
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// ruleCols are the persona_rules columns sqldriver.ScanRule reads, NULLs as "";
// rowCols adds those of store.RuleRow. The row_version column is stamped
// by the persona_rules_version trigger.
const (
	ruleCols = `rule_id, category, severity, rule_text, coalesce(scope_environment, ''), coalesce(scope_project, ''),
	coalesce(scope_agent_family, ''), scope_context_tags, scope_exclude_tags, coalesce(topic, ''),
	alpha, beta, reinforcements, counter_examples, first_seen, last_correction, status, source,
	coalesce(exception_of, ''), coalesce(exception_tag, ''), coalesce(registry, '')`
	rowCols = ruleCols + `, coalesce(archived_by, ''), coalesce(definition_sha256, '')`
)

const (
	qRuleGet    = `SELECT ` + rowCols + ` FROM persona_rules WHERE rule_id = $1`
	qRuleExists = `SELECT EXISTS (SELECT 1 FROM persona_rules WHERE rule_id = $1)`
	qRuleInsert = `INSERT INTO persona_rules (rule_id, category, severity, rule_text, scope_environment, scope_project,
	scope_agent_family, scope_context_tags, scope_exclude_tags, topic, alpha, beta, reinforcements, counter_examples,
	first_seen, last_correction, status, archived_by, source, exception_of, exception_tag, definition_sha256, registry,
	created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,
	$20, $21, $22, $23, $24, $25)`
	qRuleUpdate = `UPDATE persona_rules SET category = $1, severity = $2, rule_text = $3, scope_environment = $4,
	scope_project = $5, scope_agent_family = $6, scope_context_tags = $7, scope_exclude_tags = $8, topic = $9, alpha = $10,
	beta = $11, reinforcements = $12, counter_examples = $13, first_seen = $14, last_correction = $15, status = $16,
	archived_by = $17, source = $18, exception_of = $19, exception_tag = $20, definition_sha256 = $21, registry = $22,
	updated_at = $23 WHERE rule_id = $24`
	qRuleEvidence = `UPDATE persona_rules SET alpha = $1, beta = $2, reinforcements = $3, counter_examples = $4,
	first_seen = $5, last_correction = $6, updated_at = $7 WHERE rule_id = $8`
	qRuleStatus = `UPDATE persona_rules SET status = $1, archived_by = $2, updated_at = $3 WHERE rule_id = $4`
	qRuleRename = `UPDATE persona_rules SET rule_id = $1 WHERE rule_id = $2`
	qRuleDelete = `DELETE FROM persona_rules WHERE rule_id = $1`
	qRuleStates = `SELECT rule_id, status, coalesce(archived_by, ''), source, coalesce(registry, ''),
	coalesce(definition_sha256, ''), alpha, beta FROM persona_rules`
	qActiveRules  = `SELECT ` + ruleCols + ` FROM persona_rules WHERE status = 'active-eligible'`
	qChangedRules = `SELECT ` + ruleCols + ` FROM persona_rules WHERE row_version > $1`
	qRemovedRules = `SELECT rule_id FROM rules_removed WHERE version > $1`
	qVersions     = `SELECT (SELECT value FROM store_counters WHERE name = 'rules'),
	(SELECT value FROM store_counters WHERE name = 'config'), (SELECT value FROM store_counters WHERE name = 'embeddings')`
)

// ruleTags is how this driver stores tag lists.
var ruleTags = sqldriver.ArrayTags{}

func (r runner) rules(op, q string, args ...any) ([]engine.Rule, error) {
	return sqldriver.Collect(r.rows, op, q, args, func(sc sqldriver.Scanner) (engine.Rule, error) { return sqldriver.ScanRule(sc, ruleTags) })
}

func (r runner) Rule(id string) (store.RuleRow, bool, error) {
	op := "load rule " + id
	if err := r.ctx.Err(); err != nil {
		return store.RuleRow{}, false, dbErr(op, err)
	}
	row, err := sqldriver.ScanRuleRow(r.q.QueryRow(r.sctx(), qRuleGet, id), ruleTags)
	if err == pgx.ErrNoRows {
		return store.RuleRow{}, false, nil
	}
	return row, err == nil, dbErr(op, err)
}

func (r runner) RuleExists(id string) (bool, error) {
	var ok bool
	_, err := r.row("look up rule "+id, qRuleExists, []any{id}, &ok)
	return ok, err
}

func (r runner) Rules(q store.RuleQuery) ([]engine.Rule, error) {
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
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
		where = append(where, fmt.Sprintf(`(scope_environment IS NULL OR scope_environment = %s)
		AND (scope_project IS NULL OR scope_project = %s) AND (scope_agent_family IS NULL OR scope_agent_family = %s)`,
			arg(s.Environment), arg(s.Project), arg(s.AgentFamily)))
	}
	sqlText := "SELECT " + ruleCols + " FROM persona_rules"
	if len(where) > 0 {
		sqlText += " WHERE " + strings.Join(where, " AND ")
	}
	sqlText += " ORDER BY rule_id"
	if q.Limit > 0 {
		sqlText += " LIMIT " + arg(q.Limit)
	}
	return r.rules("list rules", sqlText, args...)
}

func (r runner) RuleStates() ([]store.RuleState, error) {
	return sqldriver.Collect(r.rows, "read rule states", qRuleStates, nil, sqldriver.ScanRuleState)
}

func (r runner) ActiveRules() ([]engine.Rule, error) {
	return r.rules("load active rules", qActiveRules)
}

func (r runner) RulesChangedSince(v int64) ([]engine.Rule, error) {
	return r.rules("load changed rules", qChangedRules, v)
}

func (r runner) RulesRemovedSince(v int64) ([]string, error) {
	return sqldriver.Collect(r.rows, "load removed rules", qRemovedRules, []any{v}, sqldriver.ScanString)
}

func (r runner) Versions() (store.Versions, error) {
	var v store.Versions
	_, err := r.row("read versions", qVersions, nil, &v.Rules, &v.Config, &v.Embeddings)
	return v, err
}

// InsertRule queues the insert; the rule, new, has no text yet (see
// InsertRuleText).
func (r runner) InsertRule(row store.RuleRow) error {
	if err := r.later("insert rule "+row.RuleID, qRuleInsert, sqldriver.InsertRuleArgs(&row, ruleTags, time.Now())...); err != nil {
		return err
	}
	if r.p != nil {
		r.p.fresh[row.RuleID] = map[string]bool{}
	}
	return nil
}

func (r runner) UpdateRule(row store.RuleRow) (bool, error) {
	args := sqldriver.UpdateRuleArgs(&row, ruleTags, time.Now())
	n, err := r.exec("save rule "+row.RuleID, qRuleUpdate, args...)
	return n > 0, err
}

func (r runner) UpdateEvidence(x engine.Rule) error {
	return r.later("save evidence of "+x.RuleID, qRuleEvidence, sqldriver.EvidenceArgs(&x, time.Now())...)
}

func (r runner) SetStatus(id string, status engine.Status, archivedBy string) error {
	return r.later("set status of "+id, qRuleStatus, string(status), sqldriver.NullStr(archivedBy), sqldriver.FormatTime(time.Now()), id)
}

// RenameRule changes the id; foreign keys cascade it to events, texts,
// embeddings, rejections and exception links.
func (r runner) RenameRule(from, to string) error {
	r.forgetFresh()
	return r.later("rename rule", qRuleRename, to, from)
}

func (r runner) DeleteRule(id string) error {
	r.forgetFresh()
	return r.later("delete rule "+id, qRuleDelete, id)
}

// forgetFresh stops InsertRuleText from answering for the rules the member
// inserted, before a write that may move or delete texts.
func (r runner) forgetFresh() {
	if r.p != nil {
		clear(r.p.fresh)
	}
}
