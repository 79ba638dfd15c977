package memory

import (
	"context"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// followRename runs use on rule id and, when no rule has that id but a rule
// was renamed from it or a candidate of that id was merged into one
// (store.DB.RuleAlias), runs it again on that rule's id: an id a user wrote
// down (in a CORRECT[id], a script, a bookmarked page) keeps reaching the
// rule it named. use must write nothing when it fails, as every use case
// here does. Errors: use's; an alias lookup's own errors are internal.
func followRename[T any](ctx context.Context, db *store.DB, id string, use func(id string) (T, error)) (T, error) {
	v, err := use(id)
	if engine.ErrorCode(err) != engine.ENOTFOUND {
		return v, err
	}
	to, aerr := db.RuleAlias(ctx, id)
	if aerr != nil {
		return v, aerr
	}
	if to == "" || to == id {
		return v, err
	}
	return use(to)
}

// renamedRule gives a correction that names rule id explicitly the id of
// the rule that id was renamed or merged into, when no rule has id; id
// otherwise. Its errors are internal.
func renamedRule(tx *store.Tx, id string) (string, error) {
	if ok, err := tx.RuleExists(id); err != nil || ok {
		return id, err
	}
	to, err := tx.RuleAlias(id)
	if err != nil || to == "" {
		return id, err
	}
	return to, nil
}
