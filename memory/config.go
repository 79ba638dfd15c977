package memory

import (
	"context"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Config returns the engine's hyperparameters: the defaults with the stored
// overrides applied. Its errors are internal.
func (s *Service) Config(ctx context.Context) (engine.Config, error) { return s.db.Config(ctx) }

// SetConfig sets hyperparameter key to value and returns the new config.
// A category's first key copies the default thresholds at that moment, so
// all of that category's keys are stored: replaying the overrides in any
// order gives the same config. Errors: EINVALID naming an unknown or
// misspelt key (and the keys there are) or a bad value, in which case
// nothing is stored.
func (s *Service) SetConfig(ctx context.Context, key, value string) (engine.Config, error) {
	return SetConfig(ctx, s.db, s.Now(), key, value)
}

// SetConfig is Service.SetConfig over db at at.
func SetConfig(ctx context.Context, db *store.DB, at time.Time, key, value string) (engine.Config, error) {
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	var cfg engine.Config
	err := db.Write(ctx, at, func(tx *store.Tx) error {
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
		rest, ok := strings.CutPrefix(key, "category.")
		if !ok {
			return tx.PutConfig(key, value)
		}
		name, _, _ := strings.Cut(rest, ".")
		for _, e := range cfg.Entries() {
			if strings.HasPrefix(e.Key, "category."+name+".") {
				if err := tx.PutConfig(e.Key, e.Value); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return cfg, err
}

// ResetConfig gives key its default again (a no-op when it has no stored
// override) and returns the new config. Errors: internal only.
func (s *Service) ResetConfig(ctx context.Context, key string) (engine.Config, error) {
	return ResetConfig(ctx, s.db, s.Now(), key)
}

// ResetConfig is Service.ResetConfig over db at at.
func ResetConfig(ctx context.Context, db *store.DB, at time.Time, key string) (engine.Config, error) {
	var cfg engine.Config
	err := db.Write(ctx, at, func(tx *store.Tx) error {
		if err := tx.DeleteConfig(strings.TrimSpace(key)); err != nil {
			return err
		}
		var err error
		cfg, err = tx.Config()
		return err
	})
	return cfg, err
}
