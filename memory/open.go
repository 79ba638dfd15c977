package memory

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

// Open opens the store dsn names (store.OpenWith: the driver of its
// scheme, which the program links in — internal/setup links LexSona's),
// timed by opts.Now (the time of day when nil), and returns a Service over
// it classifying with emb; Close closes the store. Errors: store.OpenWith's.
func Open(ctx context.Context, dsn string, emb models.Embedder, opts Options) (*Service, error) {
	clock := opts.Now
	if clock == nil {
		clock = time.Now
	}
	db, err := store.OpenWith(ctx, dsn, store.Options{Clock: clock})
	if err != nil {
		return nil, err
	}
	return New(db, emb, opts), nil
}

// Precompute runs the precompute job of reg (the default pack when nil)
// over the service's store with its bulk embedder (see Precompute): reg's
// definitions synced as their own source, then every text missing a vector
// embedded. Errors: Precompute's.
func (s *Service) Precompute(ctx context.Context, reg *registry.Registry, opts SyncOptions) (Summary, error) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	opts.Now = s.at(opts.Now)
	return Precompute(ctx, s.db, s.bulk, reg, opts)
}
