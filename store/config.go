package store

import (
	"context"
	"fmt"

	"github.com/lexsona/lexsona/engine"
)

// loadConfig returns engine.DefaultConfig with the stored overrides applied in
// key order. A stored override the engine rejects (written by hand, or by a
// newer build) is an internal error naming it.
func loadConfig(r Reader) (engine.Config, error) {
	cfg := engine.DefaultConfig()
	rows, err := r.ConfigRows()
	if err != nil {
		return cfg, err
	}
	for _, row := range rows {
		if err := cfg.Set(row.Key, row.Value); err != nil {
			return cfg, fmt.Errorf("store: stored config %s=%q is not valid (reset it with `lexsona config set`): %v", row.Key, row.Value, err)
		}
	}
	return cfg, nil
}

// Config returns the engine config inside the transaction: the defaults with
// the stored overrides applied. Its errors are internal.
func (t *Tx) Config() (engine.Config, error) { return loadConfig(t.dt) }

// Config returns the engine config: engine.DefaultConfig with the stored
// overrides applied. Its errors are internal.
func (db *DB) Config(ctx context.Context) (engine.Config, error) {
	return loadConfig(db.reader(ctx))
}

// ConfigRows returns the stored overrides by key. Its errors are internal.
func (t *Tx) ConfigRows() ([]ConfigRow, error) { return t.dt.ConfigRows() }

// PutConfig stores the override key=value (which the caller checked),
// replacing the one stored under key. Its errors are internal.
func (t *Tx) PutConfig(key, value string) error { return t.dt.PutConfig(key, value, t.at) }

// DeleteConfig removes the stored override of key (a no-op when there is
// none). Its errors are internal.
func (t *Tx) DeleteConfig(key string) error { return t.dt.DeleteConfig(key) }
