package memory

import (
	"context"

	"github.com/lexsona/lexsona/registry"
)

// RegistryPlan is what a registry sync would do (see registry.Plan).
type RegistryPlan = registry.Plan

// PlanRegistry is SyncRegistry's dry run (registry.PlanInForce) at
// opts.Now, the service's clock when zero: nothing is written, and no
// embedder is used. Errors: registry.PlanInForce's.
func (s *Service) PlanRegistry(ctx context.Context, src registry.Source, opts registry.SyncOptions) (*registry.Registry, RegistryPlan, error) {
	opts.Now = s.at(opts.Now)
	return registry.PlanInForce(ctx, s.db, src, opts)
}
