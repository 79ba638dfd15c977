package ui

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/server/internal/querycheck"
)

// contentSecurityPolicy allows the page's own stylesheet and script and
// nothing else: no inline script or style, no frames, forms posting only
// back here.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// maxFormMemory is how much of a multipart form (a registry upload) is kept
// in memory; the server's body limit bounds the whole body before this.
const maxFormMemory = 32 << 20

// securityHeaders are set on every response of the review page.
func securityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	// same-origin, not no-referrer: with no-referrer Chromium sends "Origin: null"
	// on form posts, which the server's cross-origin check refuses.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
}

// reqCtx is one request to a page or an action, with its session and
// the memory of the session's tenant.
type reqCtx struct {
	w    http.ResponseWriter
	r    *http.Request
	sess session
	csrf string
	// canWrite: the session may change things (a write key, or no keys).
	canWrite bool
	// mem is the session's tenant's memory (nil on the login form and log
	// out, and when it cannot be opened).
	mem Memory
}

func (rc *reqCtx) ctx() context.Context { return rc.r.Context() }

// redirect answers 303 See Other to path (an action's result page).
func (rc *reqCtx) redirect(path string) error {
	http.Redirect(rc.w, rc.r, path, http.StatusSeeOther)
	return nil
}

// session returns the request's session: with no keys configured, the
// session cookie's or a new one (then set), always the default tenant's;
// with keys, the cookie's if it is valid, was granted access and names a
// tenant some key belongs to. ok is false when the visitor must log in.
func (u *UI) session(w http.ResponseWriter, r *http.Request, issue bool) (session, bool) {
	ss, ok := u.sess.read(r, sessionCookie)
	if u.keys.empty() {
		if !ok && issue {
			ss, ok = u.sess.issue(accessWrite, tenant.Default), true
			u.sess.set(w, r, sessionCookie, ss)
		}
		ss.level, ss.tenant = accessWrite, tenant.Default
		return ss, ok
	}
	return ss, ok && ss.level != accessNone && u.keys.has(ss.tenant)
}

// open sets rc.mem to the memory of the session's tenant.
func (u *UI) open(rc *reqCtx) error {
	mem, err := u.memFor(rc.ctx(), rc.sess.tenant)
	if err != nil {
		return err
	}
	rc.mem = mem
	return nil
}

// page wraps a page handler: headers, the session (redirecting to the login
// form when a key is needed), the query string checked as the API checks
// its own (querycheck.Parse: a parameter not among params, one given twice,
// or a query Go's parser would partly drop is a 400 naming it, so a typo
// or a stray ";" never widens what the page shows), and errors rendered as
// an error page.
func (u *UI) page(h func(*reqCtx) error, params ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w)
		w.Header().Set("Cache-Control", "no-store")
		ss, ok := u.session(w, r, true)
		if !ok {
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		rc := &reqCtx{w: w, r: r, sess: ss, csrf: u.sess.csrf(ss), canWrite: ss.level == accessWrite}
		if _, err := querycheck.Parse(r.URL.RawQuery, params...); err != nil {
			u.fail(rc, err)
			return
		}
		if err := u.open(rc); err != nil {
			u.fail(rc, err)
			return
		}
		if err := h(rc); err != nil {
			u.fail(rc, err)
		}
	}
}

// Kinds of form posts.
const (
	postLogin = iota // the login form: its token is tied to the login cookie
	postAny          // any session may post it (log out)
	postWrite        // it changes the store: a write session only
)

// post wraps a form action: headers, the form parsed, the CSRF token
// checked against the session cookie (403 when missing or wrong), the
// session's right to write checked (403 for a read key), the memory of its
// tenant opened (for a write action), errors rendered.
func (u *UI) post(h func(*reqCtx) error, kind int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w)
		w.Header().Set("Cache-Control", "no-store")
		rc := &reqCtx{w: w, r: r}
		if err := parseForm(r); err != nil {
			u.fail(rc, err)
			return
		}
		var ss session
		var ok bool
		if kind == postLogin {
			ss, ok = u.sess.read(r, loginCookie)
		} else {
			ss, ok = u.session(w, r, false)
		}
		if !ok || !u.sess.checkCSRF(ss, r.PostFormValue("csrf")) {
			u.fail(rc, &httpError{http.StatusForbidden, "the form's security token is missing or out of date: reload the page and try again"})
			return
		}
		rc.sess, rc.csrf, rc.canWrite = ss, u.sess.csrf(ss), ss.level == accessWrite
		if kind == postWrite && !rc.canWrite {
			u.fail(rc, &httpError{http.StatusForbidden, "this session was opened with a read key: it may look but not change anything"})
			return
		}
		if kind == postWrite {
			if err := u.open(rc); err != nil {
				u.fail(rc, err)
				return
			}
		}
		if err := h(rc); err != nil {
			u.fail(rc, err)
		}
	}
}

// parseForm parses a url-encoded or multipart body; errors are EINVALID
// (ETOOLARGE for a body over the server's limit).
func parseForm(r *http.Request) error {
	var err error
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		err = r.ParseMultipartForm(maxFormMemory)
	} else {
		err = r.ParseForm()
	}
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return engine.Errorf(engine.ETOOLARGE, "the form is larger than the %d-byte limit", mbe.Limit)
	case err != nil:
		return engine.Errorf(engine.EINVALID, "the form cannot be read: send it from the page")
	}
	return nil
}

// httpError is an error of the page itself with its status and a message
// safe to show.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

// statusOf maps engine error codes to HTTP statuses.
var statusOf = map[string]int{
	engine.EINVALID: http.StatusBadRequest, engine.ENOTFOUND: http.StatusNotFound,
	engine.ECONFLICT: http.StatusConflict, engine.ETOOLARGE: http.StatusRequestEntityTooLarge,
	engine.EOVERLOADED: http.StatusTooManyRequests, engine.EUNAVAILABLE: http.StatusServiceUnavailable,
}

// fail renders err as the error page: its status and caller-safe message;
// internal errors are logged and shown as "internal error".
func (u *UI) fail(rc *reqCtx, err error) {
	status, msg := http.StatusInternalServerError, "internal error"
	var he *httpError
	switch {
	case errors.As(err, &he):
		status, msg = he.status, he.msg
	case errors.Is(err, context.DeadlineExceeded):
		status, msg = http.StatusServiceUnavailable, "the request took too long and was cancelled: try again"
	default:
		if st, ok := statusOf[engine.ErrorCode(err)]; ok {
			status, msg = st, engine.ErrorMessage(err)
		}
	}
	if status == http.StatusInternalServerError {
		u.log.Error("review page: internal error", "method", rc.r.Method, "path", rc.r.URL.Path, "err", err.Error())
	}
	u.render(rc, status, "error", &errorPage{Status: status, StatusText: http.StatusText(status), Message: msg})
}

type errorPage struct {
	Status     int
	StatusText string
	Message    string
}
