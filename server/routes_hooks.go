package server

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/hooks"
)

// hookScope is the session's scope as the route may know it, never read
// from the server's files on a remote caller's say-so: the query's scope
// parameters (base, which `lexsona hooks install --http` writes into the
// hook URL) are kept; when they name no project and the caller is on
// loopback with a cwd inside one of the server's HookRoots, the project's
// files there decide (DetectScopeWithin); otherwise the project is the last
// element of the event's cwd, read as text (CwdScope). The agent family is
// claude unless the query names one.
func (s *Server) hookScope(base engine.Scope, loopback bool) hooks.ScopeFunc {
	return func(_ context.Context, ev hooks.Event) (engine.Scope, error) {
		if base.Project == "" && loopback && len(s.cfg.HookRoots) > 0 {
			sc, ok, err := hooks.DetectScopeWithin(ev.Cwd, hooks.AgentClaude, s.cfg.HookRoots)
			if err != nil || ok {
				return sc, err
			}
		}
		return hooks.CwdScope(ev.Cwd, hooks.AgentClaude, base)
	}
}

// loopbackPeer reports whether the connection's remote address (not a
// forwarded-for header, which the caller writes) is a loopback address.
func loopbackPeer(remoteAddr string) bool {
	ap, err := netip.ParseAddrPort(remoteAddr)
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// POST /v1/hooks/claude-code: the body is the event JSON a Claude Code HTTP
// hook posts (what a command hook reads on stdin), as application/json like
// every other body of the API (text/plain is refused: 400), answered by
// hooks.HandleClaudeCode: 200 with the hook's JSON, or 204 (no body) when
// the hook has nothing to say, which Claude Code takes as a hook that
// succeeded silently. A malformed event is 400; a failure of
// the store or the model is the usual error answer. Claude Code treats any
// non-2xx answer, a refused connection or a timeout as a non-blocking error,
// so the agent goes on when the service is down.
//
// The query may name the session's scope (environment, project,
// agent_family, context_tags); see hookScope for what is used when it does
// not.
func (s *Server) handleClaudeCodeHook(c echo.Context) error {
	q := newQuery(c.QueryParams())
	base := q.scope()
	if err := q.done(); err != nil {
		return err
	}
	if err := checkContentType(c, echo.MIMEApplicationJSON); err != nil {
		return err
	}
	ev, err := hooks.ReadEvent(c.Request().Body)
	if err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	scope := s.hookScope(base, loopbackPeer(c.Request().RemoteAddr))
	// The spool's drainer sends each prompt's key: a redelivery records nothing.
	key := strings.TrimSpace(c.Request().Header.Get(IdempotencyHeader))
	out, err := hooks.HandleClaudeCode(c.Request().Context(), ev, mem, scope, hooks.Options{Notes: s.cfg.HookNotes, ReviewURL: s.reviewURL(c), IdempotencyKey: key})
	if errors.Is(err, hooks.ErrNotRecorded) {
		// The deny stands; only its receipt is missing.
		s.log.Warn("claude-code hook", "err", err)
		err = nil
	}
	if err != nil {
		return err
	}
	data, err := hooks.EncodeOutput(out)
	if err != nil {
		return err
	}
	if data == nil {
		return c.NoContent(http.StatusNoContent)
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, data)
}

// reviewURL is the review page's address as the hook's caller reached
// the service: its scheme and Host header (checked against the allowed
// hosts by the middleware), path /.
func (s *Server) reviewURL(c echo.Context) string {
	return c.Scheme() + "://" + c.Request().Host + "/"
}
