package server

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
)

// registryMediaTypes are the Content-Types POST /v1/registry/sync accepts
// (or none at all).
var registryMediaTypes = []string{"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml", "text/plain"}

// syncRegistry parses a YAML registry and runs the precompute job (see
// registry.Sync) with the server's embedder. Syncs run one at a time. Errors:
// EINVALID (a *registry.ValidationError listing every problem) for a registry
// that does not validate, ETOOLARGE for one over the registry limits, and
// Sync's own.
func (s *Server) syncRegistry(ctx context.Context, yaml []byte, name string) (registry.Summary, error) {
	reg, err := registry.Parse(yaml, name)
	if err != nil {
		return registry.Summary{}, err
	}
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	// The lexical embedder's vectors depend on the registry's vocabulary: fit
	// it first, as registry.Sync asks.
	if f, ok := s.emb.(models.Fitter); ok {
		f.Fit(reg.Texts())
	}
	return registry.Sync(ctx, s.db, s.emb, reg, registry.SyncOptions{Now: s.cfg.Now().UTC()})
}

// POST /v1/registry/sync with a YAML body (its own body limit, 16 MiB by default).
func (s *Server) handleRegistrySync(c echo.Context) error {
	if err := checkContentType(c, registryMediaTypes...); err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if len(body) == 0 {
		return engine.Errorf(engine.EINVALID, "request body is empty: want a YAML rule registry")
	}
	sum, err := s.syncRegistry(c.Request().Context(), body, "request")
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, sum)
}
