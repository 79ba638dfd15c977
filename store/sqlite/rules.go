package sqlite

import (
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// ruleCols are the persona_rules columns sqldriver.ScanRule reads, NULLs as "";
// rowCols adds those of store.RuleRow.
const (
	ruleCols = `rule_id, category, severity, rule_text, coalesce(scope_environment, ''), coalesce(scope_project, ''),
	coalesce(scope_agent_family, ''), coalesce(scope_context_tags, ''), coalesce(scope_exclude_tags, ''), coalesce(topic, ''),
	alpha, beta, reinforcements, counter_examples, first_seen, last_correction, status, source,
	coalesce(exception_of, ''), coalesce(exception_tag, ''), coalesce(registry, '')`
	rowCols = ruleCols + `, coalesce(archived_by, ''), coalesce(definition_sha256, '')`
)

// stampVersion is the row_version a statement gives the rule rows it writes:
// the 'rules' counter after the trigger bumps it (see 001_init.sql).
const stampVersion = `(SELECT value + 1 FROM store_counters WHERE name = 'rules')`

var (
	qRuleGet    = sqlq(`SELECT ` + rowCols + ` FROM persona_rules WHERE rule_id = ?`)
	qRuleExists = sqlq(`SELECT count(*) FROM persona_rules WHERE rule_id = ?`)
	qRuleInsert = sqlq(`INSERT INTO persona_rules (rule_id, category, severity, rule_text, scope_environment, scope_project,
	scope_agent_family, scope_context_tags, scope_exclude_tags, topic, alpha, beta, reinforcements, counter_examples,
	first_seen, last_correction, status, archived_by, source, exception_of, exception_tag, definition_sha256, registry,
	created_at, updated_at, row_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
	` + stampVersion + `)`)
	qRuleUpdate = sqlq(`UPDATE persona_rules SET category = ?, severity = ?, rule_text = ?, scope_environment = ?,
	scope_project = ?, scope_agent_family = ?, scope_context_tags = ?, scope_exclude_tags = ?, topic = ?, alpha = ?, beta = ?,
	reinforcements = ?, counter_examples = ?, first_seen = ?, last_correction = ?, status = ?, archived_by = ?,
	source = ?, exception_of = ?, exception_tag = ?, definition_sha256 = ?, registry = ?, updated_at = ?,
	row_version = ` + stampVersion + ` WHERE rule_id = ?`)
	qRuleEvidence = sqlq(`UPDATE persona_rules SET alpha = ?, beta = ?, reinforcements = ?, counter_examples = ?,
	first_seen = ?, last_correction = ?, updated_at = ?, row_version = ` + stampVersion + ` WHERE rule_id = ?`)
	qRuleStatus = sqlq(`UPDATE persona_rules SET status = ?, archived_by = ?, updated_at = ?,
	row_version = ` + stampVersion + ` WHERE rule_id = ?`)
	qRuleRename = sqlq(`UPDATE persona_rules SET rule_id = ? WHERE rule_id = ?`)
	qRuleDelete = sqlq(`DELETE FROM persona_rules WHERE rule_id = ?`)
	qRuleStates = sqlq(`SELECT rule_id, status, coalesce(archived_by, ''), source, coalesce(registry, ''),
	coalesce(definition_sha256, ''), alpha, beta FROM persona_rules`)
	qActiveRules  = sqlq(`SELECT ` + ruleCols + ` FROM persona_rules WHERE status = 'active-eligible'`)
	qChangedRules = sqlq(`SELECT ` + ruleCols + ` FROM persona_rules WHERE row_version > ?`)
	qRemovedRules = sqlq(`SELECT rule_id FROM rules_removed WHERE version > ?`)
	qVersions     = sqlq(`SELECT (SELECT value FROM store_counters WHERE name = 'rules'),
	(SELECT value FROM store_counters WHERE name = 'config'), (SELECT value FROM store_counters WHERE name = 'embeddings')`)
)

// ruleTags is how this driver stores tag lists.
var ruleTags = sqldriver.JSONTags{}

func (r runner) rules(op, q string, args ...any) ([]engine.Rule, error) {
	return sqldriver.Collect(r.scan, op, q, args, func(sc sqldriver.Scanner) (engine.Rule, error) { return sqldriver.ScanRule(sc, ruleTags) })
}

func (r runner) Rule(id string) (store.RuleRow, bool, error) {
	row, err := sqldriver.ScanRuleRow(r.queryRow(qRuleGet, id), ruleTags)
	if errors.Is(err, sql.ErrNoRows) {
		return store.RuleRow{}, false, nil
	}
	return row, err == nil, dbErr("load rule "+id, err)
}

func (r runner) RuleExists(id string) (bool, error) {
	var n int
	err := r.queryRow(qRuleExists, id).Scan(&n)
	return n > 0, dbErr("look up rule "+id, err)
}

func (r runner) Rules(q store.RuleQuery) ([]engine.Rule, error) {
	var where []string
	var args []any
	for _, f := range []struct{ col, v string }{
		{"category", q.Category}, {"status", string(q.Status)}, {"source", q.Source},
	} {
		if f.v != "" {
			where, args = append(where, f.col+" = ?"), append(args, f.v)
		}
	}
	if q.After != "" {
		where, args = append(where, "rule_id > ?"), append(args, q.After)
	}
	if s := q.Scope; s != nil {
		where = append(where, `(scope_environment IS NULL OR scope_environment = ?) AND (scope_project IS NULL OR scope_project = ?)
		AND (scope_agent_family IS NULL OR scope_agent_family = ?)`)
		args = append(args, s.Environment, s.Project, s.AgentFamily)
	}
	sqlText := "SELECT " + ruleCols + " FROM persona_rules"
	if len(where) > 0 {
		sqlText += " WHERE " + strings.Join(where, " AND ")
	}
	sqlText += " ORDER BY rule_id"
	if q.Limit > 0 {
		sqlText += " LIMIT ?"
		args = append(args, q.Limit)
	}
	return r.rules("list rules", sqlText, args...)
}

func (r runner) RuleStates() ([]store.RuleState, error) {
	return sqldriver.Collect(r.scan, "read rule states", qRuleStates, nil, sqldriver.ScanRuleState)
}

func (r runner) ActiveRules() ([]engine.Rule, error) {
	return r.rules("load active rules", qActiveRules)
}

func (r runner) RulesChangedSince(v int64) ([]engine.Rule, error) {
	return r.rules("load changed rules", qChangedRules, v)
}

func (r runner) RulesRemovedSince(v int64) ([]string, error) {
	return sqldriver.Collect(r.scan, "load removed rules", qRemovedRules, []any{v}, sqldriver.ScanString)
}

func (r runner) Versions() (store.Versions, error) {
	var v store.Versions
	err := r.queryRow(qVersions).Scan(&v.Rules, &v.Config, &v.Embeddings)
	return v, dbErr("read versions", err)
}

func (r runner) InsertRule(row store.RuleRow) error {
	return r.execErr("insert rule "+row.RuleID, qRuleInsert, sqldriver.InsertRuleArgs(&row, ruleTags, time.Now())...)
}

func (r runner) UpdateRule(row store.RuleRow) (bool, error) {
	args := sqldriver.UpdateRuleArgs(&row, ruleTags, time.Now())
	return r.affected("save rule "+row.RuleID, qRuleUpdate, args...)
}

func (r runner) UpdateEvidence(x engine.Rule) error {
	return r.execErr("save evidence of "+x.RuleID, qRuleEvidence, sqldriver.EvidenceArgs(&x, time.Now())...)
}

func (r runner) SetStatus(id string, status engine.Status, archivedBy string) error {
	return r.execErr("set status of "+id, qRuleStatus, string(status), sqldriver.NullStr(archivedBy), sqldriver.FormatTime(time.Now()), id)
}

// RenameRule changes the id; foreign keys cascade it to events, texts,
// embeddings, rejections and exception links.
func (r runner) RenameRule(from, to string) error {
	return r.execErr("rename rule", qRuleRename, to, from)
}

func (r runner) DeleteRule(id string) error { return r.execErr("delete rule "+id, qRuleDelete, id) }
