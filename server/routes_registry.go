package server

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/registry"
)

// registryMediaTypes are the Content-Types POST /v1/registry/sync accepts
// (not text/plain: see checkContentType).
var registryMediaTypes = []string{"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"}

// syncRegistry syncs a YAML registry (memory.Service.SyncRegistry).
func (s *Server) syncRegistry(ctx context.Context, yaml []byte, name string) (registry.Summary, error) {
	_, sum, err := s.mem.SyncRegistry(ctx, name, yaml, registry.SyncOptions{})
	return sum, err
}

// POST /v1/registry/sync with a YAML body (its own body limit, 16 MiB by default).
func (s *Server) handleRegistrySync(c echo.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if len(body) == 0 {
		return engine.Errorf(engine.EINVALID, "request body is empty: want a YAML rule registry")
	}
	if err := checkContentType(c, registryMediaTypes...); err != nil {
		return err
	}
	sum, err := s.syncRegistry(c.Request().Context(), body, "request")
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, sum)
}
