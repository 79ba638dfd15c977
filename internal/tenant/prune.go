package tenant

import (
	"context"
	"time"
)

// DefaultIdempotencyTTL is how long an idempotency key of a correction is
// remembered: a retry within it replays the first answer; after it the key
// is forgotten and the same request would be recorded anew.
const DefaultIdempotencyTTL = 24 * time.Hour

// pruneInterval is how often keys older than ttl are deleted: a 24th of the
// TTL, at least a minute and at most an hour (hourly at the default).
func pruneInterval(ttl time.Duration) time.Duration {
	return min(max(ttl/24, time.Minute), time.Hour)
}

// StartPruner deletes the idempotency keys older than ttl (by
// MemoriesConfig.Now) from every open tenant's memory, once at start and
// then every pruneInterval, until the returned stop is called (which waits
// for a pass in progress). A failed pass is logged and retried at the next
// tick. With a negative ttl nothing is pruned and stop does nothing.
func (m *Memories) StartPruner(ttl time.Duration) (stop func()) {
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
			m.PruneOnce(ctx, ttl)
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

// PruneOnce deletes the keys stored more than ttl ago in the memory of
// every tenant opened so far, logging what it deleted and what failed.
func (m *Memories) PruneOnce(ctx context.Context, ttl time.Duration) {
	for _, t := range m.Opened() {
		n, err := t.Memory.PruneIdempotencyKeys(ctx, m.cfg.Now().Add(-ttl))
		switch {
		case err != nil && ctx.Err() == nil:
			m.log.Warn("pruning idempotency keys failed; retrying at the next interval", "err", err.Error(), "tenant", t.Name)
		case n > 0:
			m.log.Info("pruned idempotency keys", "deleted", n, "older_than", ttl.String(), "tenant", t.Name)
		}
	}
}
