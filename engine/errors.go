package engine

import (
	"errors"
	"fmt"
)

// Error codes. Every error that crosses a package boundary carries one of
// these, so that each front end can map it to its own vocabulary (an HTTP
// status, a CLI exit code, an MCP tool error) in a single table.
const (
	EINVALID     = "invalid"     // the caller's input is wrong; the message names what
	ENOTFOUND    = "not_found"   // a named rule, event or confirmation does not exist
	ECONFLICT    = "conflict"    // the request contradicts stored state (duplicate id, reused idempotency key)
	EUNAVAILABLE = "unavailable" // a dependency (model, library, database) cannot be used right now
	ETOOLARGE    = "too_large"   // an input is over a documented limit
	EOVERLOADED  = "overloaded"  // a bounded queue is full; retry later
	EINTERNAL    = "internal"    // a bug or an unexpected failure; its text is never shown to callers
)

// Error is an application error with a code and a message that is safe to
// show to the caller.
type Error struct {
	Code    string
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the caller-safe message of the first *Error in err's
// chain, or a generic text for errors without one (their detail belongs in
// the server log, not in a response).
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
