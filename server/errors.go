package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/registry"
)

// Codes of the HTTP layer itself, for failures that have no engine code.
const (
	codeUnauthorized     = "unauthorized"
	codeForbidden        = "forbidden"
	codeMethodNotAllowed = "method_not_allowed"
	codeRequestTimeout   = "request_timeout" // the request body did not arrive in time
)

// statusOf is the one table mapping an engine error code to an HTTP status.
var statusOf = map[string]int{
	engine.EINVALID:      http.StatusBadRequest,
	engine.ENOTFOUND:     http.StatusNotFound,
	engine.ECONFLICT:     http.StatusConflict,
	engine.ETOOLARGE:     http.StatusRequestEntityTooLarge,
	engine.EOVERLOADED:   http.StatusTooManyRequests,
	engine.EUNAVAILABLE:  http.StatusServiceUnavailable,
	engine.EINTERNAL:     http.StatusInternalServerError,
	codeUnauthorized:     http.StatusUnauthorized,
	codeForbidden:        http.StatusForbidden,
	codeMethodNotAllowed: http.StatusMethodNotAllowed,
	codeRequestTimeout:   http.StatusRequestTimeout,
}

// codeOfStatus maps the statuses echo itself produces back to a code.
var codeOfStatus = map[int]string{
	http.StatusBadRequest:            engine.EINVALID,
	http.StatusNotFound:              engine.ENOTFOUND,
	http.StatusConflict:              engine.ECONFLICT,
	http.StatusRequestEntityTooLarge: engine.ETOOLARGE,
	http.StatusTooManyRequests:       engine.EOVERLOADED,
	http.StatusServiceUnavailable:    engine.EUNAVAILABLE,
	http.StatusUnauthorized:          codeUnauthorized,
	http.StatusForbidden:             codeForbidden,
	http.StatusMethodNotAllowed:      codeMethodNotAllowed,
	http.StatusUnsupportedMediaType:  engine.EINVALID,
	http.StatusRequestTimeout:        codeRequestTimeout,
}

// retryAfterSeconds is the Retry-After sent with 429 (overloaded) answers
// that carry none of their own (see overloadedError).
const retryAfterSeconds = 1

// ErrorBody is the JSON body of every error response: {"error": {"code", "message"}}.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is a machine-readable code and a message safe to show;
// Problems lists every problem of a registry that failed validation.
type ErrorDetail struct {
	Code     string             `json:"code"`
	Message  string             `json:"message"`
	Problems []registry.Problem `json:"problems,omitempty"`
}

// apiError is an HTTP-layer error (unauthorized, forbidden) carrying its code.
type apiError struct {
	code, msg string
}

func (e *apiError) Error() string { return e.code + ": " + e.msg }

// classify turns any error into (status, code, message). Internal detail is
// never part of the message; internal reports whether it should be logged as
// a server fault.
func classify(err error, bodyLimit int64) (status int, code, msg string, internal bool) {
	var ae *apiError
	var ee *engine.Error
	var he *echo.HTTPError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &ae):
		return statusOf[ae.code], ae.code, ae.msg, false
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge, engine.ETOOLARGE, fmt.Sprintf("request body is larger than the %d-byte limit", mbe.Limit), false
	case errors.As(err, &ee):
		st, ok := statusOf[ee.Code]
		if !ok {
			return http.StatusInternalServerError, engine.EINTERNAL, "internal error", true
		}
		if ee.Code == engine.EINTERNAL {
			return st, engine.EINTERNAL, "internal error", true
		}
		return st, ee.Code, ee.Message, false
	case errors.As(err, &he):
		return classifyHTTPError(he, bodyLimit)
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, engine.EUNAVAILABLE, "the request took too long and was cancelled: try again", false
	case errors.Is(err, context.Canceled):
		return http.StatusServiceUnavailable, engine.EUNAVAILABLE, "the request was cancelled", false
	}
	return http.StatusInternalServerError, engine.EINTERNAL, "internal error", true
}

func classifyHTTPError(he *echo.HTTPError, bodyLimit int64) (int, string, string, bool) {
	code, ok := codeOfStatus[he.Code]
	if !ok {
		return http.StatusInternalServerError, engine.EINTERNAL, "internal error", true
	}
	var msg string
	switch he.Code {
	case http.StatusNotFound:
		msg = "no such endpoint: see /openapi.json for the API"
	case http.StatusMethodNotAllowed:
		msg = "method not allowed on this endpoint: see /openapi.json for the API"
	case http.StatusRequestEntityTooLarge:
		msg = fmt.Sprintf("request body is larger than the %d-byte limit", bodyLimit)
	default:
		if s, ok := he.Message.(string); ok && he.Code < 500 {
			msg = s
		} else {
			msg = http.StatusText(he.Code)
		}
	}
	return statusOf[code], code, msg, false
}

// errorHandler is the echo HTTPErrorHandler: it answers every error with
// {"error": {"code", "message"}} and the status of the code, adds Retry-After
// to 429s, and logs internal errors (with their text) instead of showing them.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	limit := s.cfg.BodyLimit
	if l, ok := c.Get(ctxBodyLimit).(int64); ok {
		limit = l
	}
	// A damaged page met by a read turns readiness false (the default
	// tenant's) or is noted on the tenant's store.
	if m, ok := c.Get(ctxTenantMem).(Memory); ok {
		m.NoteError(err)
	} else {
		s.mem.NoteError(err)
	}
	status, code, msg, internal := classify(err, limit)
	if internal {
		s.log.Error("internal error", "request_id", requestID(c), "method", c.Request().Method,
			"path", c.Request().URL.Path, "err", err.Error())
	} else if status == http.StatusServiceUnavailable {
		s.log.Warn("unavailable", "request_id", requestID(c), "path", c.Request().URL.Path, "err", err.Error())
	}
	c.Set(ctxErrorCode, code)
	if status == http.StatusTooManyRequests {
		c.Response().Header().Set("Retry-After", strconv.Itoa(retryAfterOf(err)))
	}
	if status == http.StatusUnauthorized {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="lexsona"`)
	}
	if c.Request().Method == http.MethodHead {
		err = c.NoContent(status)
	} else {
		err = c.JSON(status, ErrorBody{ErrorDetail{Code: code, Message: msg, Problems: registry.Problems(err)}})
	}
	if err != nil {
		s.log.Debug("writing an error response failed", "request_id", requestID(c), "err", err.Error())
	}
}
