package memory

import (
	"context"

	"github.com/lexsona/lexsona/redact"
	"github.com/lexsona/lexsona/registry"
)

// SyncRegistry makes src one of the registries in force
// (syncInForce): it validates it, syncs its definitions into the
// store as its own source, leaving every other source's rules as they are,
// and embeds every text that has no vector for the service's model yet (the
// embedding precompute job), with opts (Now zero: now). A registry without
// rules is refused unless opts.AllowEmpty. Errors: EINVALID (a
// *registry.ValidationError listing every problem) for a registry that does
// not validate, has no rules (without AllowEmpty) or has no name (an upload
// without name: and without src.Name); ETOOLARGE over the registry limits;
// ECONFLICT for a rule id of another source; the store's and the
// embedder's. A registry refused writes none of its rules.
func (s *Service) SyncRegistry(ctx context.Context, src registry.Source, opts SyncOptions) (*registry.Registry, Summary, error) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	opts.Now = s.at(opts.Now)
	src.YAML, _ = redact.YAML(src.YAML) // recorded, parsed again, and its texts injected: never a secret
	return syncInForce(ctx, s.db, s.bulk, src, opts)
}

// SyncInForce readies the registries in force for the service's model
// (ensureInForce): the default pack is synced into an empty store;
// otherwise the texts still missing a vector are embedded. It returns the
// registries in force, merged. Errors: those of ensureInForce.
func (s *Service) SyncInForce(ctx context.Context, opts SyncOptions) (*registry.Registry, Summary, error) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	opts.Now = s.at(opts.Now)
	return ensureInForce(ctx, s.db, s.bulk, opts)
}

// PlanRegistry is SyncRegistry's dry run (planInForce) at opts.Now, the
// service's clock when zero: nothing is written, and no embedder is used.
// Errors: those SyncRegistry would return before embedding (EINVALID with
// every problem, ETOOLARGE, ECONFLICT for a rule id of another source); on a
// database opened read-only, EUNAVAILABLE.
func (s *Service) PlanRegistry(ctx context.Context, src registry.Source, opts SyncOptions) (*registry.Registry, RegistryPlan, error) {
	opts.Now = s.at(opts.Now)
	src.YAML, _ = redact.YAML(src.YAML) // as SyncRegistry would write it
	return planInForce(ctx, s.db, src, opts)
}
