package server

import (
	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/memory"
)

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

// memOf returns the memory of the request's tenant (tenant.Memories.Get:
// a named tenant's is opened on first use) and remembers it on c. Errors:
// those of tenant.Memories.Get.
func (s *Server) memOf(c echo.Context) (*memory.Service, error) {
	if m, ok := c.Get(ctxTenantMem).(*memory.Service); ok {
		return m, nil
	}
	m, err := s.mems.Get(c.Request().Context(), tenantName(c))
	if err != nil {
		return nil, err
	}
	c.Set(ctxTenantMem, m)
	return m, nil
}
