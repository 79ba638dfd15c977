package server

import (
	"context"
	"errors"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/store"
)

// TenantStores opens the stores of named tenants (tenant.Stores is the
// one LexSona uses: a SQLite file or a PostgreSQL schema per tenant).
type TenantStores interface {
	// OpenStore opens tenant name's store, creating it when missing. The
	// server closes it on shutdown.
	OpenStore(ctx context.Context, name string) (*store.DB, error)
}

// tenantMem is one tenant's memory: its store and the use cases over it.
type tenantMem struct {
	name string
	db   *store.DB
	mem  *memory.Service
	// emb is what the tenant's requests embed with (admitted, and batched
	// when shared); own is the tenant's own embedder (corpus-dependent
	// ones only: see Config.TenantEmbedder), closed on shutdown.
	emb models.Embedder
	own models.Embedder
}

// tenantSet holds the named tenants' memories, each opened on its first
// request and kept until shutdown.
type tenantSet struct {
	mu      sync.Mutex
	open    map[string]*tenantMem
	opening map[string]*sync.Mutex // one opener per tenant at a time
	closed  bool
}

// ctxTenant is the echo context key of the request's tenant name.
const ctxTenant = "lexsona.tenant"

// setTenant records the request's tenant (authMiddleware).
func setTenant(c echo.Context, name string) { c.Set(ctxTenant, name) }

// tenantName is the request's tenant: the one of its API key, else the
// default tenant.
func tenantName(c echo.Context) string {
	if n, ok := c.Get(ctxTenant).(string); ok && n != "" {
		return n
	}
	return tenant.Default
}

// ctxTenantMem is the echo context key of the request's resolved tenantMem.
const ctxTenantMem = "lexsona.tenant_mem"

// tenantOf returns the memory of the request's tenant (opening it on first
// use) and remembers it on c. Errors: those of tenantByName.
func (s *Server) tenantOf(c echo.Context) (*tenantMem, error) {
	if t, ok := c.Get(ctxTenantMem).(*tenantMem); ok {
		return t, nil
	}
	t, err := s.tenantByName(c.Request().Context(), tenantName(c))
	if err != nil {
		return nil, err
	}
	c.Set(ctxTenantMem, t)
	return t, nil
}

// memOf is the memory.Service of the request's tenant.
func (s *Server) memOf(c echo.Context) (*memory.Service, error) {
	t, err := s.tenantOf(c)
	if err != nil {
		return nil, err
	}
	return t.mem, nil
}

// tenantByName returns tenant name's memory, opening it on first use: its
// store (Config.Tenants), the registries in force synced into it
// (memory.Service.SyncInForce: the default pack into a new store), then the
// registries other tenants share with it (Config.SharedRegistries). Errors:
// EUNAVAILABLE when named tenants are not configured or the server is
// shutting down; those of opening the store and of the syncs (the next
// request tries again).
func (s *Server) tenantByName(ctx context.Context, name string) (*tenantMem, error) {
	if name == "" || name == tenant.Default {
		return s.defaultTenant, nil
	}
	ts := s.tenants
	ts.mu.Lock()
	if t := ts.open[name]; t != nil {
		ts.mu.Unlock()
		return t, nil
	}
	if ts.closed {
		ts.mu.Unlock()
		return nil, engine.Errorf(engine.EUNAVAILABLE, "shutting down")
	}
	lock := ts.opening[name]
	if lock == nil {
		lock = &sync.Mutex{}
		ts.opening[name] = lock
	}
	ts.mu.Unlock()

	lock.Lock()
	defer lock.Unlock()
	ts.mu.Lock()
	t := ts.open[name]
	ts.mu.Unlock()
	if t != nil {
		return t, nil
	}
	// The opening outlives an impatient caller: the next one would redo it.
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.SyncTimeout)
	defer cancel()
	t, err := s.openTenant(octx, name)
	if err != nil {
		s.log.Error("opening a tenant's memory failed", "tenant", name, "err", err.Error())
		if engine.ErrorCode(err) == engine.EINTERNAL {
			return nil, err
		}
		return nil, engine.Errorf(engine.EUNAVAILABLE, "this tenant's memory cannot be opened now: retry later")
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		t.close()
		return nil, engine.Errorf(engine.EUNAVAILABLE, "shutting down")
	}
	ts.open[name] = t
	return t, nil
}

// openTenant opens and readies tenant name's memory (see tenantByName).
func (s *Server) openTenant(ctx context.Context, name string) (*tenantMem, error) {
	if s.cfg.Tenants == nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "tenant %s: this server has no tenant stores configured", name)
	}
	if err := tenant.CheckName(name); err != nil {
		return nil, err
	}
	db, err := s.cfg.Tenants.OpenStore(ctx, name)
	if err != nil {
		return nil, err
	}
	t := &tenantMem{name: name, db: db, emb: s.emb}
	bulk := s.bulkEmb
	if _, fits := models.As[models.Fitter](s.cfg.Embedder); fits {
		// A corpus-dependent embedder is fitted on one store's registries:
		// each tenant needs its own.
		if s.cfg.TenantEmbedder == nil {
			db.Close()
			return nil, engine.Errorf(engine.EUNAVAILABLE, "tenant %s: the %s embedder follows each store's registries and no Config.TenantEmbedder opens one per tenant", name, s.cfg.Embedder.Backend())
		}
		if t.own, err = s.cfg.TenantEmbedder(ctx); err != nil {
			db.Close()
			return nil, err
		}
		t.emb, bulk = s.admit.over(t.own), t.own
	}
	t.mem = memory.New(db, t.emb, memory.Options{Classifier: s.cfg.ClassifierOptions, Now: s.cfg.Now, Bulk: bulk})
	if _, _, err := t.mem.SyncInForce(ctx, memory.SyncOptions{}); err != nil {
		t.close()
		return nil, err
	}
	if err := s.receiveShared(ctx, t); err != nil {
		t.close()
		return nil, err
	}
	return t, nil
}

// close closes what the tenant's memory opened.
func (t *tenantMem) close() error {
	var errs []error
	if t.db != nil {
		errs = append(errs, t.db.Close())
	}
	if t.own != nil {
		errs = append(errs, t.own.Close())
	}
	return errors.Join(errs...)
}

// openTenants returns the default tenant and the named tenants opened so far.
func (s *Server) openTenants() []*tenantMem {
	s.tenants.mu.Lock()
	defer s.tenants.mu.Unlock()
	out := []*tenantMem{s.defaultTenant}
	for _, t := range s.tenants.open {
		out = append(out, t)
	}
	return out
}

// closeTenants closes every named tenant's memory (the default store is
// closed by shutdownStore); later requests of named tenants are refused.
func (s *Server) closeTenants() error {
	s.tenants.mu.Lock()
	s.tenants.closed = true
	open := s.tenants.open
	s.tenants.open = map[string]*tenantMem{}
	s.tenants.mu.Unlock()
	var errs []error
	for _, t := range open {
		if err := t.close(); err != nil {
			s.log.Error("closing a tenant's store", "tenant", t.name, "err", err.Error())
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
