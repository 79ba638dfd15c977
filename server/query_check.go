package server

import (
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/server/internal/querycheck"
)

// queryMiddleware refuses (EINVALID, 400) on /v1 a query string that Go's
// parser would partly drop: net/url skips a pair holding a ";" or a bad
// %-escape, and all of them past 10,000 parameters, without a word. A
// dropped pair would widen what the handler answers for (`?project=api;`
// would read as no project at all), so the client is told what is wrong
// instead. The probes, /metrics and /openapi.json read no parameters and
// keep ignoring them.
func (s *Server) queryMiddleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if !strings.HasPrefix(req.URL.Path, "/v1/") {
			return next(c)
		}
		if err := checkRawQuery(req.URL.RawQuery); err != nil {
			return err
		}
		return next(c)
	}
}

// checkRawQuery returns an EINVALID error naming what in raw Go's parser
// would drop, nil when it parses whole (querycheck.Raw).
func checkRawQuery(raw string) error { return querycheck.Raw(raw) }
