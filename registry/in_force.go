package registry

import (
	"context"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/store"
)

// SyncInForce makes the registry named name with YAML data the one in force:
// it parses it, fits a corpus-dependent embedder (the lexical one) on its
// texts, runs the precompute job (Sync), which records it in the store in
// the transaction that switches the definitions, so that later commands and
// restarts given no registry keep using it. It is what
// `lexsona registry sync` and POST /v1/registry/sync both do. A registry that
// does not validate changes nothing. Errors: Parse's (EINVALID with every
// problem, ETOOLARGE), then Sync's.
func SyncInForce(ctx context.Context, db *store.DB, emb models.Embedder, name string, data []byte, opts SyncOptions) (*Registry, Summary, error) {
	reg, err := Parse(data, name)
	if err != nil {
		return nil, Summary{}, err
	}
	if f, ok := emb.(models.Fitter); ok {
		f.Fit(reg.Texts())
	}
	opts.Name, opts.YAML = name, data
	sum, err := Sync(ctx, db, emb, reg, opts)
	return reg, sum, err
}

// InForce returns the name and YAML of the registry in force: the one last
// recorded by SyncInForce, else the default pack (named "default").
func InForce(ctx context.Context, db *store.DB) (name string, data []byte, err error) {
	name, data, ok, err := db.Registry(ctx)
	if err != nil || ok {
		return name, data, err
	}
	return "default", DefaultYAML(), nil
}
