package classifier

import (
	"context"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// AddRule stores a rule a user defines (engine.NewRule's fields) as
// store.CreateRule does and, in the same transaction, the
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
	if err := r.Validate(); err != nil {
		return engine.Rule{}, err
	}
	p, err := c.vectors(ctx, r.Text, nil)
	if err != nil {
		return engine.Rule{}, err
	}
	var out engine.Rule
	err = c.db.Write(ctx, func(tx *store.Tx) error {
		var err error
		if out, err = tx.CreateRule(r); err != nil {
			return err
		}
		return p.store(tx, r.RuleID)
	})
	if err != nil {
		return engine.Rule{}, err
	}
	return out, nil
}
