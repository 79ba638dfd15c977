package server

import (
	"context"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/internal/tenant"
)

// Tenants are every tenant's memory, looked up by name, and the work kept
// across them: the registries shared between tenants and the pruning of
// old idempotency keys. tenantMemories (over tenant.Memories) is the
// server's.
type Tenants interface {
	// Get returns tenant name's memory (tenant.Default: the default
	// tenant's), opening a named one on first use. Errors: those of
	// tenant.Memories.Get (EUNAVAILABLE when it cannot be opened now).
	Get(ctx context.Context, name string) (Memory, error)
	// Receives reports whether tenant name receives registry regName
	// read-only from another tenant.
	Receives(name, regName string) bool
	// ShareSynced passes owner's registry regName, just synced, on to the
	// tenants it is shared with.
	ShareSynced(ctx context.Context, owner, regName string)
	// StartPruner deletes idempotency keys older than ttl, hourly, until
	// stop is called; FollowShares compares shared registries every
	// interval until stop is called.
	StartPruner(ttl time.Duration) (stop func())
	FollowShares(interval time.Duration) (stop func())
	// Close closes the named tenants' memories.
	Close() error
}

// tenantMemories are the server's Tenants: tenant.Memories, whose
// memories are *memory.Service.
type tenantMemories struct{ *tenant.Memories }

func (t tenantMemories) Get(ctx context.Context, name string) (Memory, error) {
	m, err := t.Memories.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	return m, nil
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

// ctxTenantMem is the echo context key of the request's tenant's memory.
const ctxTenantMem = "lexsona.tenant_mem"

// memOf returns the memory of the request's tenant (Tenants.Get: a named
// tenant's is opened on first use) and remembers it on c. Errors: those of
// Tenants.Get.
func (s *Server) memOf(c echo.Context) (Memory, error) {
	if m, ok := c.Get(ctxTenantMem).(Memory); ok {
		return m, nil
	}
	m, err := s.mems.Get(c.Request().Context(), tenantName(c))
	if err != nil {
		return nil, err
	}
	c.Set(ctxTenantMem, m)
	return m, nil
}
