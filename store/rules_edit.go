package store

import "github.com/lexsona/lexsona/engine"

// MoveRuleRows re-attributes from's events, vectors (those into has no
// vector for), exception links and rejections to into; its texts stay
// with from (the caller copies those it keeps). Its errors are internal.
func (t *Tx) MoveRuleRows(from, into string) error { return t.dt.MoveRuleRows(from, into) }

// DeleteRule deletes a rule that has no events left (MoveRuleRows moved
// them), with its texts and their vectors. Its errors are internal.
func (t *Tx) DeleteRule(id string) error { return t.dt.DeleteRule(id) }

// RenameRule changes a rule's id (the new one is free: checked by the
// caller); its events, texts, embeddings, rejections and exception links
// follow it.
func (t *Tx) RenameRule(from, to string) error { return t.dt.RenameRule(from, to) }

// UpdateEvidence writes r's alpha, beta, counts, first_seen and
// last_correction.
func (t *Tx) UpdateEvidence(r engine.Rule) error { return t.dt.UpdateEvidence(r, t.at) }

// SetStatus sets a rule's status and who archived it ("" unless archived).
func (t *Tx) SetStatus(id string, status engine.Status, archivedBy string) error {
	return t.dt.SetStatus(id, status, archivedBy, t.at)
}
