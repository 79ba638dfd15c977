package memory

import (
	"context"
	"sync"

	"github.com/lexsona/lexsona/registry"
)

// syncMu runs registry syncs one at a time per process (the store's write
// transaction already keeps two processes' syncs apart).
var syncMu sync.Mutex

// SyncRegistry makes src one of the registries in force
// (registry.SyncInForce): it validates it, syncs its definitions into the
// store as its own source, leaving every other source's rules as they are,
// and embeds every text that has no vector for the service's model yet (the
// embedding precompute job), with opts (Now zero: now). A registry without
// rules is refused unless opts.AllowEmpty. Errors: EINVALID (a
// *registry.ValidationError listing every problem) for a registry that does
// not validate, has no rules (without AllowEmpty) or has no name (an upload
// without name: and without src.Name); ETOOLARGE over the registry limits;
// ECONFLICT for a rule id of another source; the store's and the
// embedder's. A registry refused writes none of its rules.
func (s *Service) SyncRegistry(ctx context.Context, src registry.Source, opts registry.SyncOptions) (*registry.Registry, registry.Summary, error) {
	syncMu.Lock()
	defer syncMu.Unlock()
	opts.Now = s.at(opts.Now)
	return registry.SyncInForce(ctx, s.db, s.bulk, src, opts)
}

// SyncInForce readies the registries in force for the service's model
// (registry.EnsureInForce): the default pack is synced into an empty store;
// otherwise the texts still missing a vector are embedded. It returns the
// registries in force, merged. Errors: those of registry.EnsureInForce.
func (s *Service) SyncInForce(ctx context.Context, opts registry.SyncOptions) (*registry.Registry, registry.Summary, error) {
	syncMu.Lock()
	defer syncMu.Unlock()
	opts.Now = s.at(opts.Now)
	return registry.EnsureInForce(ctx, s.db, s.bulk, opts)
}
