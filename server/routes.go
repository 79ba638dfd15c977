package server

import (
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/hooks"
)

// routeOpt adjusts one route's limits.
type routeOpt func(s *Server, key string)

// withBodyLimit gives a route its own body limit.
func withBodyLimit(n int64) routeOpt {
	return func(s *Server, key string) { s.routeBodyLimit[key] = n }
}

// withTimeout gives a route its own time limit.
func withTimeout(d time.Duration) routeOpt {
	return func(s *Server, key string) { s.routeTimeout[key] = d }
}

// add registers a route and remembers it (for metrics labels and the
// OpenAPI test). Limits are keyed by the route pattern.
func (s *Server) add(method, path string, h echo.HandlerFunc, opts ...routeOpt) {
	s.echo.Add(method, path, h)
	s.routes[method+" "+path] = true
	for _, o := range opts {
		o(s, path)
	}
}

// knownRoute reports whether the request matched a registered route or a
// page of the review page (uiRouteMiddleware).
func (s *Server) knownRoute(c echo.Context) bool {
	return s.routes[c.Request().Method+" "+c.Path()] || c.Get(ctxUIRoute) == true
}

// quietPaths are logged at debug level when they succeed (probes, scrapes).
var quietPaths = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

func (s *Server) newEcho() *echo.Echo {
	e := echo.New()
	s.echo = e
	e.Debug = false
	e.HideBanner = true
	e.HidePort = true
	e.Logger.SetOutput(io.Discard)
	e.HTTPErrorHandler = s.errorHandler
	e.JSONSerializer = jsonSerializer{}
	// A local service without a proxy in front: the peer address is the
	// client, and X-Forwarded-For (which anyone can send) is not trusted.
	e.IPExtractor = echo.ExtractIPDirect()
	page := s.newUI()
	e.Use(s.uiRouteMiddleware(page), requestIDMiddleware, s.observeMiddleware, s.recoverMiddleware, s.probeConnMiddleware, s.browserGuard, s.authMiddleware, s.queryMiddleware, s.limitsMiddleware)
	e.Use(page.Middleware) // the review page at /

	s.add(http.MethodGet, "/healthz", s.handleHealthz)
	s.add(http.MethodGet, "/readyz", s.handleReadyz)
	s.add(http.MethodHead, "/healthz", s.handleHealthz) // probes that send HEAD: the status, no body
	s.add(http.MethodHead, "/readyz", s.handleReadyz)
	s.add(http.MethodGet, "/metrics", s.metrics.handler())
	s.add(http.MethodGet, "/openapi.json", handleOpenAPI)

	s.add(http.MethodPost, "/v1/classify", s.handleClassify)
	s.add(http.MethodPost, "/v1/corrections", s.handleRecord)
	s.add(http.MethodGet, "/v1/confirmations", s.handleListConfirmations)
	s.add(http.MethodPost, "/v1/confirmations/:id", s.handleConfirm)
	s.add(http.MethodGet, "/v1/persona", s.handlePersona)
	s.add(http.MethodGet, "/v1/why", s.handleWhy)
	s.add(http.MethodGet, "/v1/rules", s.handleListRules)
	s.add(http.MethodGet, "/v1/rules/:id", s.handleGetRule)
	s.add(http.MethodPost, "/v1/rules", s.handleCreateRule)
	s.add(http.MethodPatch, "/v1/rules/:id", s.handlePatchRule)
	s.add(http.MethodPost, "/v1/rules/:id/accept", s.handleReviewCandidate(true))
	s.add(http.MethodPost, "/v1/rules/:id/reject", s.handleReviewCandidate(false))
	s.add(http.MethodGet, "/v1/rules/:id/history", s.handleHistory)
	s.add(http.MethodGet, "/v1/learned", s.handleLearned)
	s.add(http.MethodPost, "/v1/events/:id/retract", s.handleRetract)
	s.add(http.MethodPost, "/v1/registry/sync", s.handleRegistrySync,
		withBodyLimit(s.cfg.RegistryBodyLimit), withTimeout(s.cfg.SyncTimeout))
	s.add(http.MethodPost, "/v1/embeddings", s.handleEmbeddings)
	s.add(http.MethodGet, "/v1/models", s.handleListModels)
	s.add(http.MethodGet, "/v1/models/:model", s.handleGetModel)
	s.add(http.MethodPost, hooks.HTTPRoute, s.handleClaudeCodeHook)
	return e
}

// jsonSerializer writes JSON as the CLI does: no HTML escaping, so texts
// with <, > and & read the same in both.
type jsonSerializer struct{}

func (jsonSerializer) Serialize(c echo.Context, v any, indent string) error {
	enc := json.NewEncoder(c.Response())
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	return enc.Encode(v)
}

func (jsonSerializer) Deserialize(c echo.Context, v any) error {
	return json.NewDecoder(c.Request().Body).Decode(v)
}
