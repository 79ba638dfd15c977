package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
)

// Keys of values middleware stores on the echo context.
const (
	ctxRequestID = "lexsona.request_id"
	ctxBodyLimit = "lexsona.body_limit"
	ctxErrorCode = "lexsona.error_code"
)

// requestID returns the request's id (set by requestIDMiddleware).
func requestID(c echo.Context) string {
	id, _ := c.Get(ctxRequestID).(string)
	return id
}

// validRequestID accepts a client's X-Request-ID of 1–64 characters of
// [A-Za-z0-9._-]; anything else is replaced, so ids are safe in logs.
func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		b := id[i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '.' || b == '_' || b == '-') {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// requestIDMiddleware takes the client's X-Request-ID when it is sane, else
// makes one, and echoes it in the response.
func requestIDMiddleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := c.Request().Header.Get(echo.HeaderXRequestID)
		if !validRequestID(id) {
			id = newRequestID()
		}
		c.Set(ctxRequestID, id)
		c.Response().Header().Set(echo.HeaderXRequestID, id)
		return next(c)
	}
}

// observeMiddleware resolves the handler's error into a response (through
// the error handler), then writes one structured access-log line and the
// latency metric.
func (s *Server) observeMiddleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		d := time.Since(start)
		req, res := c.Request(), c.Response()
		route, method := c.Path(), req.Method
		if !s.knownRoute(c) {
			route, method = "unmatched", "other"
		}
		s.metrics.observeRequest(route, method, res.Status, d)
		level := slog.LevelInfo
		if res.Status >= 500 {
			level = slog.LevelError
		} else if res.Status >= 400 {
			level = slog.LevelWarn
		}
		if quietPaths[req.URL.Path] && res.Status < 400 {
			level = slog.LevelDebug
		}
		attrs := []slog.Attr{
			slog.String("request_id", requestID(c)), slog.String("method", req.Method),
			slog.String("path", req.URL.Path), slog.String("route", route), slog.Int("status", res.Status),
			slog.Int64("bytes", res.Size), slog.Duration("duration", d), slog.String("remote", c.RealIP()),
		}
		if n, ok := c.Get(ctxTenant).(string); ok && s.cfg.APIKeys.Named() {
			attrs = append(attrs, slog.String("tenant", n)) // whose memory, once the key is known
		}
		if code, ok := c.Get(ctxErrorCode).(string); ok {
			attrs = append(attrs, slog.String("error_code", code))
		}
		s.log.LogAttrs(req.Context(), level, "request", attrs...)
		return nil
	}
}

// recoverMiddleware turns a handler panic into a logged internal error (500
// with no detail for the caller).
func (s *Server) recoverMiddleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				s.log.Error("panic", "request_id", requestID(c), "path", c.Request().URL.Path,
					"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return next(c)
	}
}

// limitsMiddleware applies the route's body limit (a declared Content-Length
// over it is refused at once; a body that grows past it fails its read with
// 413) and the route's time limit (its context is cancelled after it). A
// route with its own time limit also gets its own write deadline (that limit
// plus writeMargin) in place of the server's WriteTimeout.
func (s *Server) limitsMiddleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		limit, timeout := s.cfg.BodyLimit, s.cfg.RequestTimeout
		if l, ok := s.routeBodyLimit[c.Path()]; ok {
			limit = l
		}
		if t, ok := s.routeTimeout[c.Path()]; ok {
			timeout = t
			// Not supported by test recorders: they have no deadline to move.
			_ = http.NewResponseController(c.Response().Writer).SetWriteDeadline(time.Now().Add(t + writeMargin))
		}
		c.Set(ctxBodyLimit, limit)
		if req.ContentLength > limit {
			return engine.Errorf(engine.ETOOLARGE, "request body is %d bytes: the limit is %d bytes", req.ContentLength, limit)
		}
		if req.Body != nil && req.Body != http.NoBody {
			req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
		}
		if timeout > 0 {
			ctx, cancel := context.WithTimeout(req.Context(), timeout)
			defer cancel()
			c.SetRequest(req.WithContext(ctx))
		}
		return next(c)
	}
}
