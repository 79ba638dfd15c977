package server

import (
	"context"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/server/ui"
)

// ctxUIRoute marks a request the review page serves; c.Path() is then its
// route label.
const ctxUIRoute = "lexsona.ui_route"

// uploadFormOverhead is what a multipart registry upload adds to the YAML
// it carries (the boundaries, the form token, the name fields).
const uploadFormOverhead = 64 << 10

// uiUploadRoutes are the review page's registry upload routes: they carry
// a whole registry, so they get the registry sync route's limits.
var uiUploadRoutes = []string{"/ui/registry/preview", "/ui/registry/sync"}

// newUI builds the review page, served at "/" by its middleware after the
// server's own (browser guard, API auth, limits). It accepts every API key
// and shows each session its key's tenant's memory (tenant.Memories.Get); a
// registry synced on it reaches the tenants it is shared with, and one a
// tenant receives is read-only there as on the API. Its registry upload
// routes get the registry sync route's body limit (plus the form's
// overhead) and time limit.
func (s *Server) newUI() *ui.UI {
	for _, p := range uiUploadRoutes {
		s.routeBodyLimit[p] = s.cfg.RegistryBodyLimit + uploadFormOverhead
		s.routeTimeout[p] = s.cfg.SyncTimeout
	}
	return ui.New(ui.Config{
		MemoryFor: func(ctx context.Context, name string) (ui.Memory, error) { return s.mems.Get(ctx, name) },
		Keys:      uiKeys(s.cfg.APIKeys),
		OnRegistrySynced: func(ctx context.Context, name, regName string) {
			if _, err := s.mems.Get(ctx, name); err == nil {
				s.mems.ShareSynced(ctx, name, regName)
			}
		},
		SharedReadOnly: s.mems.Receives,
		Logger:         s.log,
		Now:            s.cfg.Now,
	})
}

// uiKeys are the API keys as the review page takes them, each with its tenant.
func uiKeys(k APIKeys) []ui.Key {
	var out []ui.Key
	add := func(name string, read, write []string) {
		for _, key := range read {
			out = append(out, ui.Key{Token: key, Tenant: name})
		}
		for _, key := range write {
			out = append(out, ui.Key{Token: key, Write: true, Tenant: name})
		}
	}
	add(tenant.Default, k.Read, k.Write)
	for _, name := range k.TenantNames() {
		add(name, k.Tenants[name].Read, k.Tenants[name].Write)
	}
	return out
}

// uiRouteMiddleware gives a request the review page serves its page's
// route label as its path ("/ui/rules/:id"; see ui.UI.Route), so metrics,
// access logs and the route limits treat it as a route. It runs first, so
// every later middleware sees the label.
func (s *Server) uiRouteMiddleware(u *ui.UI) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if !s.routes[c.Request().Method+" "+c.Path()] {
				if label := u.Route(c.Request()); label != "" {
					c.SetPath(label)
					c.Set(ctxUIRoute, true)
				}
			}
			return next(c)
		}
	}
}
