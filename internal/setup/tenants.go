package setup

import (
	"context"

	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/store"
)

// TenantStores returns the opener of the named tenants' stores beside the
// store cfg.DB names (store.DefaultPath() when empty): a SQLite file per
// tenant in its folder's tenants/, or a PostgreSQL schema per tenant (see
// package tenant). It opens nothing yet.
func TenantStores(cfg Config) *tenant.Stores {
	dsn := cfg.DB
	if dsn == "" {
		dsn = store.DefaultPath()
	}
	return tenant.NewStores(dsn, cfg.Logger, cfg.clock())
}

// TenantEmbedder returns a function opening another embedder as cfg
// chooses (OpenEmbedder), for tenants that cannot share one: the lexical
// embedder is fitted on each store's registries.
func TenantEmbedder(cfg Config) func(ctx context.Context) (models.Embedder, error) {
	return func(ctx context.Context) (models.Embedder, error) { return OpenEmbedder(ctx, cfg) }
}

// TenantMemories returns the opener of the named tenants' memories for a
// front end: their stores as TenantStores opens them, the use cases over
// each with cfg's options. It opens nothing yet.
func TenantMemories(cfg Config) tenant.MemoryOpener {
	return tenant.MemoryOpener{Stores: TenantStores(cfg), Options: memoryOptions(cfg)}
}

// memoryOptions are the use cases' options cfg gives.
func memoryOptions(cfg Config) memory.Options {
	return memory.Options{Classifier: ClassifierOptions(cfg), Now: cfg.Now}
}
