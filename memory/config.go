package memory

import (
	"context"

	"github.com/lexsona/lexsona/engine"
)

// Config returns the engine's hyperparameters: the defaults with the stored
// overrides applied. Its errors are internal.
func (s *Service) Config(ctx context.Context) (engine.Config, error) { return s.db.Config(ctx) }

// SetConfig sets hyperparameter key to value and returns the new config.
// Errors: EINVALID naming an unknown or misspelt key (and the keys there
// are) or a bad value, in which case nothing is stored.
func (s *Service) SetConfig(ctx context.Context, key, value string) (engine.Config, error) {
	return s.db.SetConfig(ctx, key, value)
}

// ResetConfig gives key its default again and returns the new config.
// Errors: EINVALID naming an unknown key.
func (s *Service) ResetConfig(ctx context.Context, key string) (engine.Config, error) {
	return s.db.ResetConfig(ctx, key)
}
