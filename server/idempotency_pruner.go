package server

import (
	"context"
	"time"
)

// DefaultIdempotencyTTL is how long an Idempotency-Key is remembered
// (Config.IdempotencyTTL): a retry within it replays the first answer; after
// it the key is forgotten and the same request would be recorded anew.
const DefaultIdempotencyTTL = 24 * time.Hour

// pruneInterval is how often keys older than ttl are deleted: a 24th of the
// TTL, at least a minute and at most an hour (hourly at the default).
func pruneInterval(ttl time.Duration) time.Duration {
	return min(max(ttl/24, time.Minute), time.Hour)
}

// startPruner deletes the idempotency keys older than Config.IdempotencyTTL
// once at start and then every pruneInterval, until the returned stop is
// called (which waits for a pass in progress). A failed pass is logged and
// retried at the next tick; it never stops the server. With a negative TTL
// nothing is pruned and stop does nothing.
func (s *Server) startPruner() (stop func()) {
	ttl := s.cfg.IdempotencyTTL
	if ttl < 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(pruneInterval(ttl))
		defer tick.Stop()
		for {
			s.pruneOnce(ctx, ttl)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// pruneOnce deletes the keys stored more than ttl ago in the store of
// every tenant opened so far.
func (s *Server) pruneOnce(ctx context.Context, ttl time.Duration) {
	for _, t := range s.openTenants() {
		n, err := t.db.PruneIdempotencyKeys(ctx, s.cfg.Now().Add(-ttl))
		switch {
		case err != nil && ctx.Err() == nil:
			s.log.Warn("pruning idempotency keys failed; retrying at the next interval", "err", err.Error(), "tenant", t.name)
		case n > 0:
			s.log.Info("pruned idempotency keys", "deleted", n, "older_than", ttl.String(), "tenant", t.name)
		}
	}
}
