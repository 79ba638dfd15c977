package store

import (
	"context"

	"github.com/lexsona/lexsona/engine"
)

// MoveRuleRows re-attributes from's events, vectors (those into has no
// vector for), exception links and rejections to into; its texts stay
// with from (the caller copies those it keeps). From's id, and the ids
// that led to from, become aliases of into (RuleAlias). Its errors are
// internal.
func (t *Tx) MoveRuleRows(from, into string) error {
	if err := t.dt.MoveRuleRows(from, into); err != nil {
		return err
	}
	return t.dt.PutRuleAlias(from, into, t.at)
}

// DeleteRule deletes a rule that has no events left (MoveRuleRows moved
// them), with its texts and their vectors. Its errors are internal.
func (t *Tx) DeleteRule(id string) error { return t.dt.DeleteRule(id) }

// RenameRule changes a rule's id (the new one is free: checked by the
// caller); its events, texts, embeddings, rejections, exception links and
// aliases follow it, and from becomes one of its aliases (RuleAlias). Its
// errors are internal.
func (t *Tx) RenameRule(from, to string) error {
	if err := t.dt.RenameRule(from, to); err != nil {
		return err
	}
	if err := t.dt.DeleteRuleAlias(to); err != nil {
		return err
	}
	return t.dt.PutRuleAlias(from, to, t.at)
}

// RuleAlias is an id a rule had before it was renamed, or of a candidate
// merged into it: OldID reaches rule RuleID while no rule has that id.
type RuleAlias struct {
	OldID  string `json:"old_id"`
	RuleID string `json:"rule_id"`
}

// PutRuleAlias records a.OldID as an alias of rule a.RuleID, as an import
// restores one; kept is false, with nothing written, when the store has a
// rule with that id, or an alias of it already (the store's stands).
// Errors: EINVALID for a malformed id or an alias of a rule to itself,
// ENOTFOUND when rule a.RuleID does not exist.
func (t *Tx) PutRuleAlias(a RuleAlias) (kept bool, err error) {
	for _, id := range []string{a.OldID, a.RuleID} {
		if err := engine.ValidateRuleID(id); err != nil {
			return false, err
		}
	}
	if a.OldID == a.RuleID {
		return false, engine.Errorf(engine.EINVALID, "rule %s cannot be an alias of itself", a.RuleID)
	}
	if err := mustExist(t.dt, a.RuleID); err != nil {
		return false, err
	}
	if taken, err := t.dt.RuleExists(a.OldID); err != nil || taken {
		return false, err
	}
	if _, aliased, err := t.dt.RuleAlias(a.OldID); err != nil || aliased {
		return false, err
	}
	return true, t.dt.PutRuleAlias(a.OldID, a.RuleID, t.at)
}

// RuleAlias returns the id of the rule that old was renamed or merged into,
// "" when there is none (old was never renamed, or names a rule again).
// Its errors are internal.
func (t *Tx) RuleAlias(old string) (string, error) { return ruleAlias(t.dt, old) }

// RuleAlias is Tx.RuleAlias outside a transaction.
func (db *DB) RuleAlias(ctx context.Context, old string) (string, error) {
	return ruleAlias(db.reader(ctx), old)
}

func ruleAlias(r Reader, old string) (string, error) {
	id, _, err := r.RuleAlias(old)
	return id, err
}

// UpdateEvidence writes r's alpha, beta, counts, first_seen and
// last_correction.
func (t *Tx) UpdateEvidence(r engine.Rule) error { return t.dt.UpdateEvidence(r, t.at) }

// SetStatus sets a rule's status and who archived it ("" unless archived).
func (t *Tx) SetStatus(id string, status engine.Status, archivedBy string) error {
	return t.dt.SetStatus(id, status, archivedBy, t.at)
}
