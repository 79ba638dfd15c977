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

// syncRegistry parses a YAML registry, runs the precompute job (see
// registry.Sync) with the server's embedder and records the registry as the
// one in force (as `lexsona registry sync` does, so the CLI and later starts
// keep it). Syncs run one at a time. Errors:
// EINVALID (a *registry.ValidationError listing every problem) for a registry
// that does not validate, ETOOLARGE for one over the registry limits, and
// Sync's own.
func (s *Server) syncRegistry(ctx context.Context, yaml []byte, name string) (registry.Summary, error) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	_, sum, err := registry.SyncInForce(ctx, s.db, s.bulkEmb, name, yaml, registry.SyncOptions{Now: s.cfg.Now().UTC()})
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
