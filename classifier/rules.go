package classifier

import (
	"context"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// AddRule stores a rule a user defines (engine.NewRule's fields; an empty
// Source is "user") with a creation event and, in the same transaction, the
// vectors of its text for the classifier's embedders, so that the very next
// correction can match it. The text is embedded before the write lock is
// taken. It returns the rule as stored. Errors: EINVALID or ETOOLARGE naming
// a bad field (checked before anything is embedded), ECONFLICT when the id
// exists, the embedder's errors. On error nothing is written.
func (c *Classifier) AddRule(ctx context.Context, r engine.Rule) (engine.Rule, error) {
	if c.err != nil {
		return engine.Rule{}, c.err
	}
	if r.Status == "" {
		r.Status = engine.StatusActiveEligible
	}
	if r.Source == "" {
		r.Source = engine.SourceUser
	}
	if err := r.Validate(); err != nil {
		return engine.Rule{}, err
	}
	p, err := c.vectors(ctx, r.Text, nil)
	if err != nil {
		return engine.Rule{}, err
	}
	var out engine.Rule
	err = c.db.Write(ctx, func(tx *store.Tx) error {
		cfg, err := tx.Config()
		if err != nil {
			return err
		}
		if r.Alpha == 0 && r.Beta == 0 {
			r.Alpha, r.Beta = cfg.AlphaPrior, cfg.BetaPrior
		}
		if _, err := tx.InsertRule(r, engine.Event{Detail: "created (source: " + r.Source + ")"}); err != nil {
			return err
		}
		if err := p.store(tx, r.RuleID); err != nil {
			return err
		}
		out, err = tx.GetRule(r.RuleID)
		return err
	})
	if err != nil {
		return engine.Rule{}, err
	}
	return out, nil
}
