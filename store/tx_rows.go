package store

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// The row operations of a write transaction that memory's decisions build
// on. Each writes or reads exactly what it says and decides nothing; the
// callers have validated what they pass (a rule read in the same
// transaction, a checked definition). Their errors are the driver's.

// GetRuleRow loads a rule row with the columns engine.Rule does not carry:
// EINVALID for a malformed id, ENOTFOUND naming an unknown one.
func (t *Tx) GetRuleRow(id string) (RuleRow, error) { return getRule(t.dt, id) }

// RuleStates returns what a registry sync needs of every stored rule, in
// any order.
func (t *Tx) RuleStates() ([]RuleState, error) { return t.dt.RuleStates() }

// ExceptionState returns what an exception proposal for rule ruleID is
// decided from: per context tag, the number of its counterexamples that
// carried it, and the tags for which an exception to it was proposed
// (whatever became of it) or rejected, in any order. It has the shape of
// engine.ExceptionState.
func (t *Tx) ExceptionState(ruleID string) (counts map[string]int, proposed []string, err error) {
	if counts, err = t.dt.CounterexampleTags(ruleID); err != nil {
		return nil, nil, err
	}
	proposed, err = t.dt.ExceptionTags(ruleID)
	return counts, proposed, err
}

// PutRejection records (parentID, tag) as rejected, so that the exception
// is never proposed again; DeleteRejection forgets it.
func (t *Tx) PutRejection(parentID, tag string, at time.Time) error {
	return t.dt.PutRejection(parentID, tag, at)
}

// DeleteRejection forgets that (parentID, tag) was rejected.
func (t *Tx) DeleteRejection(parentID, tag string) error { return t.dt.DeleteRejection(parentID, tag) }

// InsertRuleText adds a checked text (CheckRuleText) to a rule at the
// transaction's time; inserted is false when the rule already has a text
// with that sha256 (left unchanged).
func (t *Tx) InsertRuleText(x RuleText) (inserted bool, err error) {
	return t.dt.InsertRuleText(x, t.at)
}

// SetRuleTextKind changes the kind of a rule's text.
func (t *Tx) SetRuleTextKind(ruleID, sha256, kind string) error {
	return t.dt.SetRuleTextKind(ruleID, sha256, kind)
}

// DeleteRuleText deletes a rule's text and its vectors.
func (t *Tx) DeleteRuleText(ruleID, sha256 string) error { return t.dt.DeleteRuleText(ruleID, sha256) }

// RuleTexts returns a rule's texts by kind and sha256 inside the
// transaction.
func (t *Tx) RuleTexts(ruleID string) ([]RuleText, error) { return t.dt.RuleTexts(ruleID) }

// PutRegistryFile records a registry in force under its name (no write
// when it is recorded with the same sha256).
func (t *Tx) PutRegistryFile(f RegistryFile) error { return t.dt.PutRegistryFile(f) }

// ScopeRules returns the cached active-eligible rules whose environment,
// project and agent family admit s (a parsed scope), and the config, both
// as of one read transaction. The rules share the cache's tag lists: a
// caller that hands them out clones those. Errors are internal.
func (db *DB) ScopeRules(ctx context.Context, s engine.Scope) (rules []engine.Rule, cfg engine.Config, err error) {
	// Fast path: one query, no transaction, when nothing changed.
	var ok bool
	if rules, cfg, ok, err = db.cache.getIfFresh(db.reader(ctx), s); ok || err != nil {
		return rules, cfg, err
	}
	err = db.drv.Read(ctx, func(r Reader) error {
		rules, cfg, err = db.cache.get(r, s)
		return err
	})
	return rules, cfg, err
}
