package sqldriver

import (
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Scanner is a row being read: *sql.Row, *sql.Rows, pgx.Row and pgx.Rows
// all are.
type Scanner interface{ Scan(dest ...any) error }

// ScanRule reads a rule from a row whose columns are, NULLs selected as ""
// (tags as tags.Dest reads them): rule_id, category, severity, rule_text,
// scope_environment, scope_project, scope_agent_family, scope_context_tags,
// scope_exclude_tags, topic, alpha, beta, reinforcements, counter_examples,
// first_seen, last_correction, status, source, exception_of, exception_tag,
// registry, stated_at, stated_by, stated_text, stated_counter_base; then
// the columns extra reads (a rule without a statement has stated_at ""). Empty tag lists are nil. Its
// errors are the Scan's (a missing row included) or a stored value that
// cannot be read.
func ScanRule(sc Scanner, tags Tags, extra ...any) (engine.Rule, error) {
	var r engine.Rule
	var sev, status, first, last, statedAt string
	var st engine.Statement
	dest := []any{&r.RuleID, &r.Category, &sev, &r.Text, &r.Scope.Environment, &r.Scope.Project,
		&r.Scope.AgentFamily, tags.Dest(&r.Scope.ContextTags), tags.Dest(&r.Scope.ExcludeTags), &r.Topic, &r.Alpha, &r.Beta,
		&r.Reinforcements, &r.CounterExamples, &first, &last, &status, &r.Source, &r.ExceptionOf, &r.ExceptionTag, &r.Registry,
		&statedAt, &st.By, &st.Text, &st.CounterBase}
	if err := sc.Scan(append(dest, extra...)...); err != nil {
		return r, err
	}
	if statedAt != "" {
		var err error
		if st.At, err = ParseTime(statedAt); err != nil {
			return r, err
		}
		r.Stated = &st
	}
	r.Severity, r.Status = engine.Severity(sev), engine.Status(status)
	if len(r.Scope.ContextTags) == 0 {
		r.Scope.ContextTags = nil
	}
	if len(r.Scope.ExcludeTags) == 0 {
		r.Scope.ExcludeTags = nil
	}
	var err error
	if r.FirstSeen, err = ParseTime(first); err != nil {
		return r, err
	}
	r.LastCorrection, err = ParseTime(last)
	return r, err
}

// ScanRuleRow is ScanRule followed by archived_by and definition_sha256.
func ScanRuleRow(sc Scanner, tags Tags) (store.RuleRow, error) {
	var row store.RuleRow
	var err error
	row.Rule, err = ScanRule(sc, tags, &row.ArchivedBy, &row.DefinitionSHA256)
	row.Registry = row.Rule.Registry
	return row, err
}

// ScanRuleState reads rule_id, status, archived_by, source, registry,
// definition_sha256, alpha and beta (NULLs as "").
func ScanRuleState(sc Scanner) (store.RuleState, error) {
	var s store.RuleState
	var status string
	err := sc.Scan(&s.RuleID, &status, &s.ArchivedBy, &s.Source, &s.Registry, &s.DefinitionSHA256, &s.Alpha, &s.Beta)
	s.Status = engine.Status(status)
	return s, err
}

// ruleArgs are the values of a rule's definition and evidence columns, in
// ScanRule's order from category to last_correction, then those of a rule
// row: status, archived_by, source, exception_of, exception_tag,
// definition_sha256, registry; then statedArgs.
func ruleArgs(row *store.RuleRow, tags Tags) []any {
	x := &row.Rule
	return append([]any{x.Category, string(x.Severity), x.Text, NullStr(x.Scope.Environment), NullStr(x.Scope.Project),
		NullStr(x.Scope.AgentFamily), tags.Arg(x.Scope.ContextTags), tags.Arg(x.Scope.ExcludeTags), NullStr(x.Topic),
		x.Alpha, x.Beta, x.Reinforcements, x.CounterExamples, FormatTime(x.FirstSeen), FormatTime(x.LastCorrection),
		string(row.Status), NullStr(row.ArchivedBy), row.Source, NullStr(row.ExceptionOf),
		NullStr(row.ExceptionTag), NullStr(row.DefinitionSHA256), NullStr(row.Registry)}, statedArgs(x)...)
}

// statedArgs are the values of x's statement: stated_at, stated_by,
// stated_text (NULLs when x has none) and stated_counter_base.
func statedArgs(x *engine.Rule) []any {
	if x.Stated == nil {
		return []any{nil, nil, nil, 0}
	}
	return []any{FormatTime(x.Stated.At), x.Stated.By, NullStr(x.Stated.Text), x.Stated.CounterBase}
}

// InsertRuleArgs are the values that insert row: rule_id, the columns of
// ScanRule from category to last_correction, status, archived_by, source,
// exception_of, exception_tag, definition_sha256, registry, created_at and
// updated_at (both now).
func InsertRuleArgs(row *store.RuleRow, tags Tags, now time.Time) []any {
	at := FormatTime(now)
	return append(append([]any{row.RuleID}, ruleArgs(row, tags)...), at, at)
}

// UpdateRuleArgs are the values that overwrite row: InsertRuleArgs' from
// category to registry, updated_at (now), then rule_id.
func UpdateRuleArgs(row *store.RuleRow, tags Tags, now time.Time) []any {
	return append(ruleArgs(row, tags), FormatTime(now), row.RuleID)
}

// EvidenceArgs are the values that save x's evidence: alpha, beta,
// reinforcements, counter_examples, first_seen, last_correction, the
// statement (statedArgs), updated_at (now), then rule_id.
func EvidenceArgs(x *engine.Rule, now time.Time) []any {
	args := []any{x.Alpha, x.Beta, x.Reinforcements, x.CounterExamples, FormatTime(x.FirstSeen),
		FormatTime(x.LastCorrection)}
	return append(append(args, statedArgs(x)...), FormatTime(now), x.RuleID)
}

// ScanEvent reads an event from a row whose columns are, NULLs selected as
// "" except score: event_id, rule_id, event_type, user_text, agent_output,
// frame_id, scope, decision, score, candidates, model, detail, polarity,
// alpha, beta, at. Its errors are ScanRule's.
func ScanEvent(sc Scanner) (engine.Event, error) {
	var e engine.Event
	var et, scope, cands, at string
	var pol int16
	if err := sc.Scan(&e.EventID, &e.RuleID, &et, &e.UserText, &e.AgentOutput, &e.FrameID, &scope, &e.Decision,
		&e.Score, &cands, &e.Model, &e.Detail, &pol, &e.Alpha, &e.Beta, &at); err != nil {
		return e, err
	}
	e.EventType, e.Polarity = engine.EventType(et), engine.Polarity(pol)
	var err error
	if e.Scope, err = ParseScope(scope); err != nil {
		return e, err
	}
	if e.Candidates, err = ParseCandidates(cands); err != nil {
		return e, err
	}
	e.At, err = ParseTime(at)
	return e, err
}

// EventArgs are the values of an event's columns, in ScanEvent's order
// from rule_id to at.
func EventArgs(ev *engine.Event) []any {
	var score any
	if ev.Score != nil {
		score = *ev.Score
	}
	return []any{ev.RuleID, string(ev.EventType), NullStr(ev.UserText), NullStr(ev.AgentOutput), NullStr(ev.FrameID),
		ScopeJSON(ev.Scope), NullStr(ev.Decision), score, CandidatesJSON(ev.Candidates), NullStr(ev.Model),
		NullStr(ev.Detail), int16(ev.Polarity), ev.Alpha, ev.Beta, FormatTime(ev.At)}
}

// ScanPending reads a confirmation from a row whose columns are, NULLs
// selected as "": id, text, scope, polarity, frame_id, agent_output,
// candidates, model, status, rule_id, created_at, resolved_at, seen,
// last_seen_at, gate (NULL read as nil), direction_unsure (0 or 1),
// instruction. Its candidates are never nil. Its errors are ScanRule's.
func ScanPending(sc Scanner) (engine.Pending, error) {
	var p engine.Pending
	var scope, cands, created, resolved, lastSeen string
	var pol int16
	var unsure int64
	if err := sc.Scan(&p.ID, &p.Text, &scope, &pol, &p.FrameID, &p.AgentOutput, &cands, &p.Model, &p.Status,
		&p.RuleID, &created, &resolved, &p.Seen, &lastSeen, &p.Gate, &unsure, &p.Instruction); err != nil {
		return p, err
	}
	p.DirectionUnsure = unsure != 0
	if lastSeen != "" {
		t, err := ParseTime(lastSeen)
		if err != nil {
			return p, err
		}
		p.LastSeenAt = &t
	}
	p.Polarity = engine.Polarity(pol)
	var err error
	if p.Scope, err = ParseScope(scope); err != nil {
		return p, err
	}
	if p.Candidates, err = ParseCandidates(cands); err != nil {
		return p, err
	}
	if p.Candidates == nil {
		p.Candidates = []engine.Candidate{}
	}
	if p.CreatedAt, err = ParseTime(created); err != nil {
		return p, err
	}
	if resolved != "" {
		t, err := ParseTime(resolved)
		if err != nil {
			return p, err
		}
		p.ResolvedAt = &t
	}
	return p, nil
}

// PendingArgs are the values of a new confirmation's columns: text, scope,
// polarity, frame_id, agent_output, candidates ("[]" when none), model,
// created_at, gate (NULL when nil), direction_unsure (0 or 1), instruction
// (NULL when "").
func PendingArgs(p *engine.Pending) []any {
	cands := CandidatesJSON(p.Candidates)
	if cands == nil {
		cands = "[]"
	}
	unsure := 0
	if p.DirectionUnsure {
		unsure = 1
	}
	return []any{p.Text, ScopeJSON(p.Scope), int16(p.Polarity), NullStr(p.FrameID), NullStr(p.AgentOutput),
		cands, NullStr(p.Model), FormatTime(p.CreatedAt), p.Gate, unsure, NullStr(p.Instruction)}
}

// ScanRegistryFile reads name, yaml, sha256, synced_at.
func ScanRegistryFile(sc Scanner) (store.RegistryFile, error) {
	var f store.RegistryFile
	var at string
	if err := sc.Scan(&f.Name, &f.YAML, &f.SHA256, &at); err != nil {
		return f, err
	}
	var err error
	f.SyncedAt, err = ParseTime(at)
	return f, err
}

// Rows are the rows of a query being read: *sql.Rows and pgx.Rows both are.
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// Each calls fn for each row of rows, stopping at its first error, and
// returns that error or rows' own.
func Each(rows Rows, fn func(Scanner) error) error {
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Query runs the query q (op names it in errors) and calls fn for each row.
type Query func(op, q string, args []any, fn func(Scanner) error) error

// Collect returns what read reads from each row of q, in order: never nil
// without an error, nil with one.
func Collect[T any](query Query, op, q string, args []any, read func(Scanner) (T, error)) ([]T, error) {
	out := []T{}
	err := query(op, q, args, func(sc Scanner) error {
		x, err := read(sc)
		out = append(out, x)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ScanString reads a row of one text column.
func ScanString(sc Scanner) (string, error) {
	var s string
	err := sc.Scan(&s)
	return s, err
}

// ScanConfigRow reads key, value.
func ScanConfigRow(sc Scanner) (store.ConfigRow, error) {
	var c store.ConfigRow
	err := sc.Scan(&c.Key, &c.Value)
	return c, err
}

// ScanRuleText reads rule_id, kind, text, text_sha256.
func ScanRuleText(sc Scanner) (store.RuleText, error) {
	var x store.RuleText
	err := sc.Scan(&x.RuleID, &x.Kind, &x.Text, &x.SHA256)
	return x, err
}

// CountTags reads rows of tag, n into a map.
func CountTags(query Query, op, q string, args []any) (map[string]int, error) {
	out := map[string]int{}
	err := query(op, q, args, func(sc Scanner) error {
		var tag string
		var n int
		err := sc.Scan(&tag, &n)
		out[tag] = n
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
