package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/registry"
)

// registryMediaTypes are the Content-Types POST /v1/registry/sync accepts
// (not text/plain: see checkContentType).
var registryMediaTypes = []string{"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"}

// POST /v1/registry/sync?name=&allow_empty=&dry_run= with a YAML body (its
// own body limit, 16 MiB by default): memory.Service.SyncRegistry of one
// source, named by the YAML's name: or the name parameter (one of them is
// required; both must then agree). A registry without rules is refused
// unless allow_empty=true. With dry_run=true it answers
// memory.Service.PlanRegistry's plan instead and writes nothing.
func (s *Server) handleRegistrySync(c echo.Context) error {
	q := newQuery(c.QueryParams())
	src := registry.Source{Name: q.str("name")}
	opts := memory.SyncOptions{AllowEmpty: q.bool("allow_empty")}
	dryRun := q.bool("dry_run")
	if err := q.done(); err != nil {
		return err
	}
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
	src.YAML = body
	if err := s.refuseReceived(c, src); err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	if dryRun {
		_, plan, err := mem.PlanRegistry(c.Request().Context(), src, opts)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, plan)
	}
	reg, sum, err := mem.SyncRegistry(c.Request().Context(), src, opts)
	if err != nil {
		return err
	}
	s.mems.ShareSynced(c.Request().Context(), tenantName(c), reg.Name())
	return c.JSON(http.StatusOK, sum)
}
