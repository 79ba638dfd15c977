package store

import (
	"database/sql"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// ruleCols are the persona_rules columns scanRule reads, NULLs as "".
const ruleCols = `rule_id, category, severity, rule_text, coalesce(scope_environment, ''), coalesce(scope_project, ''),
	coalesce(scope_agent_family, ''), coalesce(scope_context_tags, ''), coalesce(scope_exclude_tags, ''), coalesce(topic, ''),
	alpha, beta, reinforcements, counter_examples, first_seen, last_correction, status, source,
	coalesce(exception_of, ''), coalesce(exception_tag, '')`

var (
	qRuleGet    = sqlq(`SELECT ` + ruleCols + ` FROM persona_rules WHERE rule_id = ?`)
	qRuleExists = sqlq(`SELECT count(*) FROM persona_rules WHERE rule_id = ?`)
	qRuleInsert = sqlq(`INSERT INTO persona_rules (rule_id, category, severity, rule_text, scope_environment, scope_project,
	scope_agent_family, scope_context_tags, scope_exclude_tags, topic, alpha, beta, reinforcements, counter_examples,
	first_seen, last_correction, status, archived_by, source, exception_of, exception_tag, definition_sha256, created_at, updated_at,
	row_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
	` + stampVersion + `)`)
	qRuleSave = sqlq(`UPDATE persona_rules SET category = ?, severity = ?, rule_text = ?, scope_environment = ?,
	scope_project = ?, scope_agent_family = ?, scope_context_tags = ?, scope_exclude_tags = ?, topic = ?, alpha = ?, beta = ?,
	reinforcements = ?, counter_examples = ?, first_seen = ?, last_correction = ?, status = ?,
	archived_by = CASE WHEN ? = 'archived' THEN coalesce(archived_by, 'user') ELSE NULL END,
	source = ?, exception_of = ?, exception_tag = ?, updated_at = ?, row_version = ` + stampVersion + ` WHERE rule_id = ?`)
)

// stampVersion is the row_version a statement gives the rule rows it writes:
// the 'rules' counter after the trigger bumps it (see 001_init.sql).
const stampVersion = `(SELECT value + 1 FROM store_counters WHERE name = 'rules')`

type scanner interface{ Scan(dest ...any) error }

func scanRule(sc scanner) (engine.Rule, error) {
	var r engine.Rule
	var sev, status, ctags, etags, first, last string
	if err := sc.Scan(&r.RuleID, &r.Category, &sev, &r.Text, &r.Scope.Environment, &r.Scope.Project,
		&r.Scope.AgentFamily, &ctags, &etags, &r.Topic, &r.Alpha, &r.Beta, &r.Reinforcements, &r.CounterExamples,
		&first, &last, &status, &r.Source, &r.ExceptionOf, &r.ExceptionTag); err != nil {
		return r, err
	}
	r.Severity, r.Status = engine.Severity(sev), engine.Status(status)
	var err error
	if r.Scope.ContextTags, err = parseTags(ctags); err != nil {
		return r, err
	}
	if r.Scope.ExcludeTags, err = parseTags(etags); err != nil {
		return r, err
	}
	if r.FirstSeen, err = parseTime(first); err != nil {
		return r, err
	}
	r.LastCorrection, err = parseTime(last)
	return r, err
}

// getRule loads one rule: EINVALID for a malformed id, ENOTFOUND naming it.
func getRule(r runner, id string) (engine.Rule, error) {
	if err := engine.ValidateRuleID(id); err != nil {
		return engine.Rule{}, err
	}
	rule, err := scanRule(r.queryRow(qRuleGet, id))
	if errors.Is(err, sql.ErrNoRows) {
		return rule, engine.Errorf(engine.ENOTFOUND, "rule %q not found", id)
	}
	return rule, dbErr("load rule "+id, err)
}

func ruleExists(r runner, id string) (bool, error) {
	var n int
	err := r.queryRow(qRuleExists, id).Scan(&n)
	return n > 0, dbErr("look up rule "+id, err)
}

var sourcePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// checkRule normalises r (scope, UTC times, default source) and validates
// every field, returning an EINVALID (or ETOOLARGE) error naming the first bad one.
func checkRule(r *engine.Rule) error {
	s, err := engine.ParseScope(r.Scope)
	if err != nil {
		return err
	}
	r.Scope = s
	r.Text = strings.TrimSpace(r.Text)
	if r.Source == "" {
		r.Source = engine.SourceUser
	}
	if err := r.Validate(); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"alpha", r.Alpha}, {"beta", r.Beta}} {
		if err := validateFloat(f.name, f.v, 0); err != nil || f.v == 0 {
			return engine.Errorf(engine.EINVALID, "rule %s: %s is %v: want a finite number > 0", r.RuleID, f.name, f.v)
		}
	}
	if r.Reinforcements < 0 || r.CounterExamples < 0 {
		return engine.Errorf(engine.EINVALID, "rule %s: negative evidence counts", r.RuleID)
	}
	if !sourcePattern.MatchString(r.Source) {
		return engine.Errorf(engine.EINVALID, "rule %s: malformed source %q: want a lowercase word such as registry, user or correction", r.RuleID, r.Source)
	}
	if r.ExceptionOf != "" {
		if err := engine.ValidateRuleID(r.ExceptionOf); err != nil {
			return err
		}
		if r.ExceptionOf == r.RuleID {
			return engine.Errorf(engine.EINVALID, "rule %s cannot be an exception to itself", r.RuleID)
		}
	}
	if r.ExceptionTag != "" {
		if r.ExceptionOf == "" {
			return engine.Errorf(engine.EINVALID, "rule %s has an exception tag but no exception_of", r.RuleID)
		}
		if err := engine.ValidateScopeValue("exception tag", r.ExceptionTag); err != nil {
			return err
		}
	}
	if r.FirstSeen.IsZero() || r.LastCorrection.IsZero() {
		return engine.Errorf(engine.EINVALID, "rule %s: first_seen and last_correction must be set", r.RuleID)
	}
	r.FirstSeen, r.LastCorrection = r.FirstSeen.UTC(), r.LastCorrection.UTC()
	return nil
}

// insertRuleRow inserts a checked rule; archivedBy and defSHA are the
// columns engine.Rule does not carry.
func (t *Tx) insertRuleRow(r *engine.Rule, archivedBy, defSHA string) error {
	if r.Status == engine.StatusArchived && archivedBy == "" {
		archivedBy = "user"
	}
	now := fmtTime(time.Now())
	_, err := t.exec(qRuleInsert, r.RuleID, r.Category, string(r.Severity), r.Text, nullStr(r.Scope.Environment),
		nullStr(r.Scope.Project), nullStr(r.Scope.AgentFamily), tagsJSON(r.Scope.ContextTags), tagsJSON(r.Scope.ExcludeTags),
		nullStr(r.Topic), r.Alpha, r.Beta, r.Reinforcements, r.CounterExamples, fmtTime(r.FirstSeen), fmtTime(r.LastCorrection),
		string(r.Status), nullStr(archivedBy), r.Source, nullStr(r.ExceptionOf), nullStr(r.ExceptionTag), nullStr(defSHA), now, now)
	return dbErr("insert rule "+r.RuleID, err)
}

// GetRule loads a rule inside the transaction: EINVALID for a malformed id,
// ENOTFOUND naming an unknown one.
func (t *Tx) GetRule(id string) (engine.Rule, error) { return getRule(t.runner, id) }

// RuleExists reports whether a rule with that id exists (for example before
// inserting a candidate whose id may already be proposed). Its errors are
// internal.
func (t *Tx) RuleExists(id string) (bool, error) { return ruleExists(t.runner, id) }

// InsertRule validates r and inserts it with its creation event ev (its type,
// rule id, alpha and beta are filled in; a zero At becomes r.FirstSeen) and,
// unless r is an exception proposal, r.Text as the rule's template text. Zero
// FirstSeen/LastCorrection become now, an empty Status active-eligible, an
// empty Source user. It returns the creation event's id. Errors: EINVALID or
// ETOOLARGE for a bad field or an unknown exception_of rule, ECONFLICT when
// the id exists.
func (t *Tx) InsertRule(r engine.Rule, ev engine.Event) (int64, error) {
	if r.FirstSeen.IsZero() {
		r.FirstSeen = time.Now()
	}
	if r.LastCorrection.IsZero() {
		r.LastCorrection = r.FirstSeen
	}
	if r.Status == "" {
		r.Status = engine.StatusActiveEligible
	}
	if err := checkRule(&r); err != nil {
		return 0, err
	}
	if ok, err := ruleExists(t.runner, r.RuleID); err != nil || ok {
		if err == nil {
			err = engine.Errorf(engine.ECONFLICT, "rule %q already exists", r.RuleID)
		}
		return 0, err
	}
	if r.ExceptionOf != "" {
		if ok, err := ruleExists(t.runner, r.ExceptionOf); err != nil || !ok {
			if err == nil {
				err = engine.Errorf(engine.EINVALID, "rule %s is an exception to %q, which does not exist", r.RuleID, r.ExceptionOf)
			}
			return 0, err
		}
	}
	if err := t.insertRuleRow(&r, "", ""); err != nil {
		return 0, err
	}
	ev.RuleID, ev.EventType, ev.Alpha, ev.Beta = r.RuleID, engine.EventCreation, r.Alpha, r.Beta
	if ev.At.IsZero() {
		ev.At = r.FirstSeen
	}
	id, err := t.AppendEvent(ev)
	if err != nil {
		return 0, err
	}
	if r.ExceptionOf == "" {
		if err := t.AddRuleText(r.RuleID, KindTemplate, r.Text); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// SaveRule validates r and overwrites the stored rule of the same id with it
// (every field; archiving it marks it archived by the user unless it already
// was archived). It writes no event: append one with AppendEvent. Errors:
// EINVALID or ETOOLARGE for a bad field, ENOTFOUND for an unknown id.
func (t *Tx) SaveRule(r engine.Rule) error {
	if err := checkRule(&r); err != nil {
		return err
	}
	res, err := t.exec(qRuleSave, r.Category, string(r.Severity), r.Text, nullStr(r.Scope.Environment),
		nullStr(r.Scope.Project), nullStr(r.Scope.AgentFamily), tagsJSON(r.Scope.ContextTags), tagsJSON(r.Scope.ExcludeTags),
		nullStr(r.Topic), r.Alpha, r.Beta, r.Reinforcements, r.CounterExamples, fmtTime(r.FirstSeen), fmtTime(r.LastCorrection),
		string(r.Status), string(r.Status), r.Source, nullStr(r.ExceptionOf), nullStr(r.ExceptionTag), fmtTime(time.Now()), r.RuleID)
	if err != nil {
		return dbErr("save rule "+r.RuleID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return engine.Errorf(engine.ENOTFOUND, "rule %q not found", r.RuleID)
	}
	return nil
}
