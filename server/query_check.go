package server

import (
	"errors"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
)

// maxQueryParams is the most query parameters a request may carry: Go's
// net/url parses no more (see url.ParseQuery).
const maxQueryParams = 10000

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
// would drop, nil when it parses whole.
func checkRawQuery(raw string) error {
	if raw == "" {
		return nil
	}
	if n := strings.Count(raw, "&") + 1; n > maxQueryParams {
		return engine.Errorf(engine.EINVALID, "the query string has %d parameters: at most %d", n, maxQueryParams)
	}
	for pair := range strings.SplitSeq(raw, "&") {
		if strings.Contains(pair, ";") {
			return engine.Errorf(engine.EINVALID, "query parameter %q contains \";\": separate parameters with \"&\" (a literal semicolon is written %%3B)", clip(pair))
		}
	}
	if _, err := url.ParseQuery(raw); err != nil {
		var ee url.EscapeError
		if errors.As(err, &ee) {
			return engine.Errorf(engine.EINVALID, "the query string has a malformed escape %q: a literal %% is written %%25", clip(string(ee)))
		}
		return engine.Errorf(engine.EINVALID, "the query string cannot be parsed: %v", err)
	}
	return nil
}
