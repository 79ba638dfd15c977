package store

import (
	"regexp"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// getRule loads one rule row: EINVALID for a malformed id, ENOTFOUND naming
// an unknown one. The id is looked up as it is: no rule has a malformed id,
// so one is reported as such only when nothing is found.
func getRule(r Reader, id string) (RuleRow, error) {
	row, ok, err := r.Rule(id)
	if err != nil || ok {
		return row, err
	}
	if err := engine.ValidateRuleID(id); err != nil {
		return RuleRow{}, err
	}
	return RuleRow{}, engine.Errorf(engine.ENOTFOUND, "rule %q not found", id)
}

// mustExist returns ENOTFOUND naming id unless the rule exists.
func mustExist(r Reader, id string) error {
	ok, err := r.RuleExists(id)
	if err == nil && !ok {
		err = notFound(id)
	}
	return err
}

var sourcePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// CheckRule normalises r (scope, trimmed text, UTC times) and validates
// every field a rule row holds, returning an EINVALID (or ETOOLARGE) error
// naming the first bad one.
func CheckRule(r *engine.Rule) error {
	s, err := engine.ParseScope(r.Scope)
	if err != nil {
		return err
	}
	r.Scope = s
	r.Text = strings.TrimSpace(r.Text)
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

// InsertRuleRow inserts a checked rule row (CheckRuleRow) whose id is
// free; an archived one is archived by the user unless row says otherwise.
func (t *Tx) InsertRuleRow(row RuleRow) error {
	// A rule created under an id that was renamed away takes the id back.
	if err := t.dt.DeleteRuleAlias(row.RuleID); err != nil {
		return err
	}
	return t.dt.InsertRule(archivedBy(row), t.at)
}

// archivedBy gives row the archived_by column its status allows: none
// unless archived, the user when archived by no one named.
func archivedBy(row RuleRow) RuleRow {
	switch {
	case row.Status != engine.StatusArchived:
		row.ArchivedBy = ""
	case row.ArchivedBy == "":
		row.ArchivedBy = ArchivedByUser
	}
	return row
}

// GetRule loads a rule inside the transaction: EINVALID for a malformed id,
// ENOTFOUND naming an unknown one.
func (t *Tx) GetRule(id string) (engine.Rule, error) {
	row, err := getRule(t.dt, id)
	return row.Rule, err
}

// RuleExists reports whether a rule with that id exists (for example before
// inserting a candidate whose id may already be proposed). Its errors are
// internal.
func (t *Tx) RuleExists(id string) (bool, error) { return t.dt.RuleExists(id) }

// InsertRule validates r, a complete rule (engine.Rule.Complete fills in a
// new one), and inserts it with its creation event ev (its type, rule id,
// alpha and beta are filled in; a zero At becomes r.FirstSeen) and, unless
// r is an exception proposal, r.Text as the rule's template text. It
// returns the creation event's id. Errors: EINVALID or ETOOLARGE for a bad
// field or an unknown exception_of rule, ECONFLICT when the id exists.
func (t *Tx) InsertRule(r engine.Rule, ev engine.Event) (int64, error) {
	if err := CheckRule(&r); err != nil {
		return 0, err
	}
	if ok, err := t.dt.RuleExists(r.RuleID); err != nil || ok {
		if err == nil {
			err = engine.Errorf(engine.ECONFLICT, "rule %q already exists", r.RuleID)
		}
		return 0, err
	}
	if r.ExceptionOf != "" {
		if ok, err := t.dt.RuleExists(r.ExceptionOf); err != nil || !ok {
			if err == nil {
				err = engine.Errorf(engine.EINVALID, "rule %s is an exception to %q, which does not exist", r.RuleID, r.ExceptionOf)
			}
			return 0, err
		}
	}
	if err := t.InsertRuleRow(RuleRow{Rule: r}); err != nil {
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
		x := RuleText{RuleID: r.RuleID, Kind: KindTemplate, Text: r.Text, SHA256: TextSHA256(r.Text)}
		if _, err := t.dt.InsertRuleText(x, t.at); err != nil {
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
	if err := CheckRule(&r); err != nil {
		return err
	}
	old, ok, err := t.dt.Rule(r.RuleID)
	if err != nil {
		return err
	}
	if !ok {
		return notFound(r.RuleID)
	}
	return t.SaveRuleRow(RuleRow{Rule: r, ArchivedBy: old.ArchivedBy, DefinitionSHA256: old.DefinitionSHA256, Registry: old.Registry})
}

// SaveRuleRow overwrites a checked rule row (ENOTFOUND when there is
// none): an archived rule keeps who archived it (the user when it was not
// archived), any other has no one.
func (t *Tx) SaveRuleRow(row RuleRow) error {
	ok, err := t.dt.UpdateRule(archivedBy(row), t.at)
	if err == nil && !ok {
		err = notFound(row.RuleID)
	}
	return err
}
