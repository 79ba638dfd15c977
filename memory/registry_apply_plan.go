package memory

import (
	"context"
	"errors"
	"time"

	"github.com/lexsona/lexsona/store"
)

// errPlanned ends PlanRegistry's transaction so that it rolls back.
var errPlanned = errors.New("registry sync planned: rolled back")

// PlanRegistry is SyncRegistry without its writes: it runs each sync of
// syncs in order, as SyncRegistry would (the same validation and the same
// decisions, each seeing the ones before it), inside one write transaction
// that is then rolled back, and returns what each would add, update,
// archive and keep. The YAML of a sync is not recorded. Nothing is written,
// so a plan goes stale as soon as another write commits.
//
// Errors: SyncRegistry's (EINVALID, ETOOLARGE, ECONFLICT, for the first
// sync that would fail); on a database opened read-only, the read-only
// fault (EUNAVAILABLE): a plan needs a transaction it can roll back.
func PlanRegistrySyncs(ctx context.Context, db *store.DB, syncs ...RegistrySync) ([]SyncResult, error) {
	type prepared struct {
		name    string
		checked []syncDef
		s       RegistrySync
	}
	preps := make([]prepared, 0, len(syncs))
	for _, s := range syncs {
		name, err := registryName(s.Name)
		if err != nil {
			return nil, err
		}
		s.At = atOrNow(s.At)
		checked, err := checkDefinitions(s.Definitions, s.At)
		if err != nil {
			return nil, err
		}
		if s.Contrary != nil {
			if err := CheckTextsOf(store.KindContrary, s.Contrary(nil)); err != nil {
				return nil, err
			}
		}
		preps = append(preps, prepared{name, checked, s})
	}
	out := make([]SyncResult, len(preps))
	at := atOrNow(time.Time{}) // a plan with no sync still takes the write lock
	if len(preps) > 0 {
		at = preps[0].s.At
	}
	err := db.Write(ctx, at, func(tx *store.Tx) error {
		for i, p := range preps {
			res := SyncResult{Added: []string{}, Updated: []string{}, Archived: []string{}, Kept: []string{}}
			if err := applyDefinitions(tx, p.name, p.checked, p.s.At, &res); err != nil {
				return err
			}
			if p.s.Contrary != nil {
				if err := ReplaceTextsOf(tx, store.KindContrary, p.s.Contrary(res.Kept)); err != nil {
					return err
				}
			}
			out[i] = res
		}
		return errPlanned
	})
	switch {
	case errors.Is(err, errPlanned):
		return out, nil
	case err != nil:
		return nil, err
	}
	return nil, errors.New("registry plan: the transaction committed instead of rolling back")
}
