package store

import (
	"context"
	"fmt"
	"strings"
	"time"

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

// SetConfig validates key=value with engine.Config.ValidateKey and Set
// against the current config, stores it and returns the new config. Errors:
// EINVALID naming the unknown or misspelt key (and the keys there are) or the
// bad value, in which case nothing is stored.
func (db *DB) SetConfig(ctx context.Context, key, value string) (engine.Config, error) {
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	var cfg engine.Config
	err := db.Write(ctx, func(tx *Tx) error {
		var err error
		if cfg, err = tx.Config(); err != nil {
			return err
		}
		if err := cfg.ValidateKey(key); err != nil {
			return err
		}
		if err := cfg.Set(key, value); err != nil {
			return err
		}
		now := time.Now()
		// A category's first key copies the default thresholds at that moment:
		// store all three of its keys, so replaying the overrides in any order
		// gives the same config.
		if rest, ok := strings.CutPrefix(key, "category."); ok {
			name, _, _ := strings.Cut(rest, ".")
			for _, e := range cfg.Entries() {
				if strings.HasPrefix(e.Key, "category."+name+".") {
					if err := tx.dt.PutConfig(e.Key, e.Value, now); err != nil {
						return err
					}
				}
			}
			return nil
		}
		return tx.dt.PutConfig(key, value, now)
	})
	return cfg, err
}

// ResetConfig removes the stored override of key (a no-op when there is
// none), so it has its default again, and returns the new config. Errors:
// internal only.
func (db *DB) ResetConfig(ctx context.Context, key string) (engine.Config, error) {
	var cfg engine.Config
	err := db.Write(ctx, func(tx *Tx) error {
		if err := tx.dt.DeleteConfig(strings.TrimSpace(key)); err != nil {
			return err
		}
		var err error
		cfg, err = tx.Config()
		return err
	})
	return cfg, err
}
