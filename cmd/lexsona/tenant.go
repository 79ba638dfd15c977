package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/memory"
)

// addTenantFlag registers --tenant NAME (env LEXSONA_TENANT) on c: the
// command then works on that tenant's memory, kept beside --db as lexsona
// serve keeps it, instead of the default one.
func (a *app) addTenantFlag(c *cobra.Command, name *string, what string) {
	c.Flags().StringVar(name, "tenant", a.cfg.Tenant,
		what+" the memory of the tenant `NAME` (its store beside --db, as lexsona serve keeps it) instead of the default one (env LEXSONA_TENANT)")
}

// openTenantMemory opens tenant name's memory as the command's (what
// openMemory returns afterwards, so the embedder is fitted on its
// registries); "" or "default" is --db itself. With create false, a tenant that has no store
// yet is ENOTFOUND naming where it was looked for (nothing is created);
// with create true, its store is created as the server would create it.
// Errors: EINVALID for a bad name; the store's.
func (a *app) openTenantMemory(ctx context.Context, name string, create bool) (*memory.Service, error) {
	if name == "" || name == tenant.Default {
		return a.openMemory(ctx)
	}
	stores := setup.TenantStores(a.setupConfig())
	if !create {
		exists, err := stores.Exists(ctx, name)
		if err != nil {
			return nil, err
		}
		if !exists {
			return nil, engine.Errorf(engine.ENOTFOUND, "tenant %s has no memory yet (no %s): check --tenant and --db", name, stores.Where(name))
		}
	}
	mem, err := setup.TenantMemories(a.setupConfig()).OpenMemory(ctx, name, tenant.Embedders{})
	if err != nil {
		return nil, err
	}
	a.mem = mem
	return mem, nil
}

// checkMCPTenant refuses (ENOTFOUND, before anything is opened or created)
// a --tenant of lexsona mcp that is neither a tenant with a memory already
// nor one the API keys name (keysFile, else LEXSONA_API_KEYS): a misspelt
// name would otherwise get an empty memory of its own. "" and "default"
// are always known. Errors: EINVALID for a bad name or keys; the store's
// when it cannot be looked at.
func (a *app) checkMCPTenant(ctx context.Context, name, keysFile string) error {
	if name == "" || name == tenant.Default {
		return nil
	}
	stores := setup.TenantStores(a.setupConfig())
	exists, err := stores.Exists(ctx, name)
	if err != nil || exists {
		return err
	}
	var keys tenant.Keys
	if keysFile != "" {
		keys, err = tenant.LoadKeysFile(keysFile)
	} else {
		keys, err = tenant.ParseKeys(a.cfg.APIKeys)
	}
	if err != nil {
		return usageError{err}
	}
	if _, ok := keys.Tenants[name]; ok {
		return nil
	}
	return engine.Errorf(engine.ENOTFOUND, "tenant %s has no memory yet (no %s) and no API key names it: check --tenant and --db, "+
		"or give the keys file that names it (--api-keys-file or LEXSONA_API_KEYS_FILE) to create its memory", name, stores.Where(name))
}
