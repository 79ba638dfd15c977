package store

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// CreateRule validates r and stores it with a creation event and r.Text as
// its template text. Zero Alpha and Beta get the configured prior, zero times
// now, an empty Status active-eligible, an empty Source user. It returns the
// rule as stored. Errors: EINVALID or ETOOLARGE naming a bad field (id,
// category, severity, text, scope…), ECONFLICT when the id exists.
func (db *DB) CreateRule(ctx context.Context, r engine.Rule) (engine.Rule, error) {
	var out engine.Rule
	err := db.Write(ctx, func(tx *Tx) error {
		var err error
		out, err = tx.CreateRule(r)
		return err
	})
	return out, err
}

// CreateRule is DB.CreateRule inside the transaction (for callers that store
// more with the rule, such as its text's vectors).
func (t *Tx) CreateRule(r engine.Rule) (engine.Rule, error) {
	if r.Alpha == 0 && r.Beta == 0 {
		cfg, err := t.Config()
		if err != nil {
			return engine.Rule{}, err
		}
		r.Alpha, r.Beta = cfg.AlphaPrior, cfg.BetaPrior
	}
	src := r.Source
	if src == "" {
		src = engine.SourceUser
	}
	if _, err := t.InsertRule(r, engine.Event{Detail: "created (source: " + src + ")"}); err != nil {
		return engine.Rule{}, err
	}
	return t.GetRule(r.RuleID)
}

// MergeRows gives into the texts of candidate from as correction texts
// (the texts into has already stay as they are), then from's vectors,
// events, exception links and rejections, and deletes from.
func (tx *Tx) MergeRows(from, into string) error {
	texts, err := tx.dt.RuleTexts(from)
	if err != nil {
		return err
	}
	now := time.Now()
	for _, x := range texts {
		x.RuleID = into
		if x.Kind == KindTemplate {
			x.Kind = KindCorrection
		}
		if _, err := tx.dt.InsertRuleText(x, now); err != nil {
			return err
		}
	}
	if err := tx.dt.MoveRuleRows(from, into); err != nil {
		return err
	}
	return tx.dt.DeleteRule(from)
}

// RenameRule changes a rule's id (the new one is free: checked by the
// caller); its events, texts, embeddings, rejections and exception links
// follow it.
func (tx *Tx) RenameRule(from, to string) error { return tx.dt.RenameRule(from, to) }
