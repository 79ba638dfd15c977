package ui_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/server/servertest"
	"github.com/lexsona/lexsona/server/ui"
)

// TestLogoutRevokesTheSession: after logging out, a copy of the session
// cookie taken while logged in (as a stolen or cached cookie would be) is
// refused — the page redirects to the login form and a form posted with
// it is forbidden — while another session of the same key stays open.
func TestLogoutRevokesTheSession(t *testing.T) {
	var changed []string
	e := newPage(t, withRules(&servertest.Memory{}, &changed, rule(aRule, "Use ripgrep")), []ui.Key{{Token: writeKey, Write: true}}, false)
	b, other := e.browserDefault(), e.browserDefault()
	home := b.login(t, writeKey)
	other.login(t, writeKey)
	u, _ := url.Parse(e.url)
	var kept *http.Cookie
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == "lexsona_session" {
			kept = c
		}
	}
	if kept == nil {
		t.Fatal("no session cookie after logging in")
	}
	token := csrf(t, home)
	if res := b.post("/logout", url.Values{"csrf": {token}}); res.status != http.StatusSeeOther || !strings.HasPrefix(res.header.Get("Location"), "/login") {
		t.Fatalf("logout: status %d, Location %q; want 303 to the login", res.status, res.header.Get("Location"))
	}

	replay := e.browserDefault()
	replay.c.Jar.SetCookies(u, []*http.Cookie{{Name: kept.Name, Value: kept.Value, Path: "/"}})
	if p := replay.get("/rules"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/login") {
		t.Errorf("the logged-out cookie on a page: status %d, Location %q; want 303 to the login", p.status, p.header.Get("Location"))
	}
	if p := replay.post("/rules/"+aRule+"/archive", url.Values{"csrf": {token}}); p.status != http.StatusForbidden {
		t.Errorf("the logged-out cookie on a form: status %d, want 403", p.status)
	}
	if p := other.get("/rules"); p.status != http.StatusOK {
		t.Errorf("another session of the same key after the logout: status %d, want 200", p.status)
	}
	if len(changed) != 0 {
		t.Errorf("the logged-out cookie changed rules: %v", changed)
	}
}
