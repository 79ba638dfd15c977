package ui

import (
	"net/http"
	"net/url"
	"strings"
)

// loginPage is the login form's data.
type loginPage struct {
	Next    string
	Message string
	CSRF    string // tied to the pre-login cookie
	Open    bool   // no keys configured: nothing to log in to
}

func (p *loginPage) title() (string, string) { return "Log in", "" }

// safeNext returns next when it is a path on this site, else "/": the
// login form and the actions never redirect elsewhere. Backslashes, white
// space and control characters are refused too, since browsers drop or
// turn them into "/" (making "/\t/evil" or "/\\evil" another host).
func safeNext(next string) string {
	if next == "" || next[0] != '/' || strings.HasPrefix(next, "//") ||
		strings.ContainsFunc(next, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '\\' }) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return "/"
	}
	return next
}

// loginPage asks for an API key. Its CSRF token is tied to a pre-login
// cookie of its own.
func (u *UI) loginPage(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w)
	w.Header().Set("Cache-Control", "no-store")
	p := &loginPage{Next: safeNext(r.URL.Query().Get("next")), Open: u.keys.empty()}
	pre, ok := u.sess.read(r, loginCookie)
	if !ok {
		pre = u.sess.issue(accessNone, "")
		u.sess.set(w, r, loginCookie, pre)
	}
	p.CSRF = u.sess.csrf(pre)
	// The layout gets no CSRF token (no inbox count, no log out); the form does.
	u.render(&reqCtx{w: w, r: r, sess: pre}, http.StatusOK, "login", p)
}

// login checks the key posted and opens a session of the key's tenant with
// the access it grants (a new session id), or shows the form again (401).
func (u *UI) login(rc *reqCtx) error {
	next := safeNext(rc.r.PostFormValue("next"))
	if u.keys.empty() {
		return rc.redirect(next)
	}
	lvl, name := u.keys.level(strings.TrimSpace(rc.r.PostFormValue("key")))
	if lvl == accessNone {
		p := &loginPage{Next: next, Message: "That key is not one of this server's API keys.", CSRF: rc.csrf}
		u.render(&reqCtx{w: rc.w, r: rc.r, sess: rc.sess}, http.StatusUnauthorized, "login", p)
		return nil
	}
	u.sess.set(rc.w, rc.r, sessionCookie, u.sess.issue(lvl, name))
	clearCookie(rc.w, rc.r, loginCookie)
	return rc.redirect(next)
}

// logout ends the session: its cookie is deleted from the browser and
// revoked on the server, so a copy of it is refused too.
func (u *UI) logout(rc *reqCtx) error {
	u.sess.revoke(rc.sess)
	clearCookie(rc.w, rc.r, sessionCookie)
	if u.keys.empty() {
		return rc.redirect("/")
	}
	return rc.redirect("/login")
}
