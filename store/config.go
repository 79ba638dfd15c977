package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
)

var (
	qConfigAll    = sqlq(`SELECT key, value FROM persona_config ORDER BY key`)
	qConfigUpsert = sqlq(`INSERT INTO persona_config (key, value, updated_at) VALUES (?, ?, ?)
	ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`)
	qConfigDelete = sqlq(`DELETE FROM persona_config WHERE key = ?`)
)

// loadConfig returns engine.DefaultConfig with the stored overrides applied in
// key order. A stored override the engine rejects (written by hand, or by a
// newer build) is an internal error naming it.
func loadConfig(r runner) (engine.Config, error) {
	cfg := engine.DefaultConfig()
	rows, err := r.query(qConfigAll)
	if err != nil {
		return cfg, dbErr("load config", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return cfg, dbErr("load config", err)
		}
		if err := cfg.Set(k, v); err != nil {
			return cfg, fmt.Errorf("store: stored config %s=%q is not valid (reset it with `lexsona config set`): %v", k, v, err)
		}
	}
	return cfg, dbErr("load config", rows.Err())
}

// Config returns the engine config inside the transaction: the defaults with
// the stored overrides applied. Its errors are internal.
func (t *Tx) Config() (engine.Config, error) { return loadConfig(t.runner) }

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
		now := fmtTime(time.Now())
		// A category's first key copies the default thresholds at that moment:
		// store all three of its keys, so replaying the overrides in any order
		// gives the same config.
		if rest, ok := strings.CutPrefix(key, "category."); ok {
			name, _, _ := strings.Cut(rest, ".")
			for _, e := range cfg.Entries() {
				if strings.HasPrefix(e.Key, "category."+name+".") {
					if _, err := tx.exec(qConfigUpsert, e.Key, e.Value, now); err != nil {
						return dbErr("store config", err)
					}
				}
			}
			return nil
		}
		_, err = tx.exec(qConfigUpsert, key, value, now)
		return dbErr("store config", err)
	})
	return cfg, err
}

// ResetConfig removes the stored override of key (a no-op when there is
// none), so it has its default again, and returns the new config. Errors:
// internal only.
func (db *DB) ResetConfig(ctx context.Context, key string) (engine.Config, error) {
	var cfg engine.Config
	err := db.Write(ctx, func(tx *Tx) error {
		if _, err := tx.exec(qConfigDelete, strings.TrimSpace(key)); err != nil {
			return dbErr("reset config", err)
		}
		var err error
		cfg, err = tx.Config()
		return err
	})
	return cfg, err
}
