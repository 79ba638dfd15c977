package memory

import (
	"context"
	"sync"

	"github.com/lexsona/lexsona/registry"
)

// syncMu runs registry syncs one at a time per process (the store's write
// transaction already keeps two processes' syncs apart).
var syncMu sync.Mutex

// SyncRegistry makes the registry named name with YAML data one in force:
// it validates it, syncs its definitions into the store and embeds every
// text that has no vector for the service's model yet (registry.SyncInForce,
// the embedding precompute job), with opts (Now zero: now). Errors: EINVALID
// (a *registry.ValidationError listing every problem) for a registry that
// does not validate, ETOOLARGE over the registry limits, the store's and the
// embedder's; a registry that does not validate changes nothing.
func (s *Service) SyncRegistry(ctx context.Context, name string, data []byte, opts registry.SyncOptions) (*registry.Registry, registry.Summary, error) {
	syncMu.Lock()
	defer syncMu.Unlock()
	opts.Now = s.at(opts.Now)
	return registry.SyncInForce(ctx, s.db, s.bulk, name, data, opts)
}
