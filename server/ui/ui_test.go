package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/server"
	"github.com/lexsona/lexsona/server/servertest"
	"github.com/lexsona/lexsona/server/ui"
)

// aRule is a rule of the default pack the tests change.
const aRule = "tool.use-ripgrep"

// TestEveryResponseHasTheCSP: every page, asset and error the page serves
// carries the strict policy, and no page has inline script or style.
func TestEveryResponseHasTheCSP(t *testing.T) {
	var changed []string
	b := newPage(t, withRules(&servertest.Memory{}, &changed, rule(aRule, "Use ripgrep")), nil, false).browserDefault()
	for _, path := range []string{"/", "/rules", "/rules/" + aRule, "/persona", "/registry", "/login", "/ui/assets/ui.css", "/ui/assets/ui.js", "/rules/no.such-rule"} {
		t.Run(path, func(t *testing.T) {
			p := b.get(path)
			csp := p.header.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "form-action 'self'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
				t.Errorf("CSP %q allows inline code", csp)
			}
			if p.header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("no nosniff: %v", p.header)
			}
			if strings.Contains(p.header.Get("Content-Type"), "text/html") {
				for _, m := range regexp.MustCompile(`<script[^>]*>`).FindAllString(p.body, -1) {
					if !strings.Contains(m, `src="/ui/assets/`) {
						t.Errorf("inline script tag %s", m)
					}
				}
				if strings.Contains(p.body, " style=") || strings.Contains(p.body, "<style") {
					t.Errorf("inline style in %s", path)
				}
			}
		})
	}
}

func (e *env) browserDefault() *browser { return e.browser(e.ts.Client()) }

// TestPostWithoutCSRFTokenIsRefused: a form posted without this session's
// token is refused (403) before it reaches the memory; with it, it does.
func TestPostWithoutCSRFTokenIsRefused(t *testing.T) {
	var changed []string
	e := newPage(t, withRules(&servertest.Memory{}, &changed, rule(aRule, "Use ripgrep")), nil, false)
	b := e.browserDefault()
	page := b.get("/rules/" + aRule)
	if page.status != http.StatusOK {
		t.Fatalf("rule page: %d %.300s", page.status, page.body)
	}
	good := csrf(t, page)
	other := e.browserDefault() // another session: its token is not this one's
	otherTok := csrf(t, other.get("/rules/"+aRule))
	for _, c := range []struct {
		name string
		form url.Values
	}{
		{"missing", url.Values{}},
		{"empty", url.Values{"csrf": {""}}},
		{"garbage", url.Values{"csrf": {"not-a-token"}}},
		{"another session's", url.Values{"csrf": {otherTok}}},
		{"truncated", url.Values{"csrf": {good[:len(good)-2]}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if p := b.post("/rules/"+aRule+"/archive", c.form); p.status != http.StatusForbidden {
				t.Fatalf("status %d, want 403: %.300s", p.status, p.body)
			}
		})
	}
	// Without any cookie, even a token that was valid is refused.
	fresh := e.browserDefault()
	if p := fresh.post("/rules/"+aRule+"/archive", url.Values{"csrf": {good}}); p.status != http.StatusForbidden {
		t.Fatalf("no cookie: status %d, want 403", p.status)
	}
	if len(changed) != 0 {
		t.Fatalf("refused posts reached the memory: %v", changed)
	}
	// The right token is accepted.
	if p := b.post("/rules/"+aRule+"/archive", url.Values{"csrf": {good}}); p.status != http.StatusSeeOther {
		t.Fatalf("with the token: status %d: %.300s", p.status, p.body)
	}
	if !slices.Equal(changed, []string{"archive " + aRule}) {
		t.Fatalf("the memory got %v, want the archive of %s", changed, aRule)
	}
}

func TestCrossSitePostIsRefused(t *testing.T) {
	b := newEnv(t, server.APIKeys{}, false).browserDefault()
	tok := csrf(t, b.get("/rules/"+aRule))
	for _, c := range []struct{ name, origin, site string }{
		{"foreign Origin", "https://evil.example", "same-origin"},
		{"cross-site fetch", "", "cross-site"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b.origin = c.origin
			req, _ := http.NewRequest(http.MethodPost, b.e.url+"/rules/"+aRule+"/archive", strings.NewReader(url.Values{"csrf": {tok}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			req.Header.Set("Sec-Fetch-Site", c.site)
			if p := b.do(req); p.status != http.StatusForbidden {
				t.Fatalf("status %d, want 403: %.300s", p.status, p.body)
			}
		})
	}
}

// TestReadKeySeesButCannotChange: a session of a read key sees the pages
// without their forms, and every change it posts is refused (403) before
// it reaches the memory; a write key's is not.
func TestReadKeySeesButCannotChange(t *testing.T) {
	var changed []string
	e := newPage(t, withRules(&servertest.Memory{}, &changed, rule(aRule, "Use ripgrep")),
		[]ui.Key{{Token: readKey}, {Token: writeKey, Write: true}}, false)
	b := e.browserDefault()
	if p := b.get("/rules"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/login") {
		t.Fatalf("without a session: %d to %q, want 303 to /login", p.status, p.header.Get("Location"))
	}
	home := b.login(t, readKey)
	if home.status != http.StatusOK || !strings.Contains(home.body, "read only") {
		t.Fatalf("home with a read key: %d %.300s", home.status, home.body)
	}
	rp := b.get("/rules/" + aRule)
	if rp.status != http.StatusOK || !strings.Contains(rp.body, aRule) {
		t.Fatalf("rule page with a read key: %d", rp.status)
	}
	for _, action := range []string{"/archive", "/edit", "/restore"} {
		if strings.Contains(rp.body, `action="/rules/`+aRule+action+`"`) {
			t.Errorf("the read session is shown a %s form", action)
		}
	}
	tok := csrf(t, rp) // the log-out form's: a valid token of this session
	for _, path := range []string{"/rules/" + aRule + "/archive", "/rules/" + aRule + "/edit", "/confirmations/1", "/registry/preview"} {
		if p := b.post(path, url.Values{"csrf": {tok}, "text": {"changed"}, "action": {"reject"}}); p.status != http.StatusForbidden {
			t.Errorf("POST %s with a read key: status %d, want 403", path, p.status)
		}
	}
	if len(changed) != 0 {
		t.Fatalf("a read session changed rules: %v", changed)
	}
	// A write key may.
	w := e.browserDefault()
	w.login(t, writeKey)
	wp := w.get("/rules/" + aRule)
	if p := w.post("/rules/"+aRule+"/archive", url.Values{"csrf": {csrf(t, wp)}}); p.status != http.StatusSeeOther {
		t.Fatalf("archive with a write key: %d %.300s", p.status, p.body)
	}
	if !slices.Equal(changed, []string{"archive " + aRule}) {
		t.Fatalf("the memory got %v, want the write session's archive", changed)
	}
}

func TestLoginCookie(t *testing.T) {
	for _, tls := range []bool{false, true} {
		t.Run(map[bool]string{false: "http", true: "https"}[tls], func(t *testing.T) {
			e := newPage(t, &servertest.Memory{}, []ui.Key{{Token: writeKey, Write: true}}, tls)
			client := e.ts.Client()
			b := e.browser(client)
			lp := b.get("/login")
			bad := b.post("/login", url.Values{"csrf": {csrf(t, lp)}, "key": {"w-not-the-key-0000000"}})
			if bad.status != http.StatusUnauthorized || !strings.Contains(bad.body, "not one of this server") {
				t.Fatalf("wrong key: %d", bad.status)
			}
			res := b.post("/login", url.Values{"csrf": {csrf(t, lp)}, "key": {writeKey}, "next": {"https://evil.example/"}})
			if res.status != http.StatusSeeOther || res.header.Get("Location") != "/" {
				t.Fatalf("login: %d to %q, want 303 to / (never off-site)", res.status, res.header.Get("Location"))
			}
			var cookie string
			for _, c := range res.header.Values("Set-Cookie") {
				if strings.HasPrefix(c, "lexsona_session=") {
					cookie = c
				}
			}
			for _, want := range []string{"HttpOnly", "SameSite=Strict", "Path=/"} {
				if !strings.Contains(cookie, want) {
					t.Errorf("session cookie %q lacks %s", cookie, want)
				}
			}
			if strings.Contains(cookie, "Secure") != tls {
				t.Errorf("session cookie %q: Secure should be %v", cookie, tls)
			}
			if strings.Contains(cookie, writeKey) {
				t.Error("the session cookie holds the key")
			}
			if p := b.get("/"); p.status != http.StatusOK {
				t.Fatalf("after login: %d", p.status)
			}
			// A forged cookie is no session.
			f := e.browser(client)
			u, _ := url.Parse(e.url)
			f.c.Jar.SetCookies(u, []*http.Cookie{{Name: "lexsona_session", Value: "djF8YWJjfHdyaXRlfDk5OTk5OTk5OTk.AAAA"}})
			if p := f.get("/"); p.status != http.StatusSeeOther {
				t.Fatalf("forged cookie: %d, want 303 to the login", p.status)
			}
		})
	}
}

// TestRuleTextIsEscaped: a rule's text, and a query echoed back, are shown
// escaped on every page.
func TestRuleTextIsEscaped(t *testing.T) {
	const evil = `<script>alert("x")</script><img src=x onerror=alert(1)>`
	var changed []string
	mem := withRules(&servertest.Memory{}, &changed, rule("test.escaped", "never run "+evil))
	mem.PersonaFn = func(context.Context, memory.PersonaRequest) (engine.Snapshot, error) {
		return engine.Snapshot{Prompt: "- never run " + evil}, nil
	}
	b := newPage(t, mem, nil, false).browserDefault()
	for _, path := range []string{"/rules", "/rules/test.escaped", "/rules?q=" + url.QueryEscape(evil), "/persona"} {
		p := b.get(path)
		if p.status != http.StatusOK {
			t.Fatalf("%s: %d %.300s", path, p.status, p.body)
		}
		if strings.Contains(p.body, "<script>alert") || strings.Contains(p.body, "<img src=x") {
			t.Errorf("%s shows the text unescaped", path)
		}
		if path != "/persona" && !strings.Contains(p.body, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
			t.Errorf("%s does not show the escaped text", path)
		}
	}
}

func TestEditShowsInReceipts(t *testing.T) {
	b := newEnv(t, server.APIKeys{}, false).browserDefault()
	rp := b.get("/rules/" + aRule)
	form := url.Values{"csrf": {csrf(t, rp)}, "text": {"Use ripgrep (rg), never grep -r."}, "severity": {"must"},
		"environment": {""}, "project": {""}, "agent_family": {""}, "context_tags": {""}, "exclude_tags": {"vendored"}}
	res := b.post("/rules/"+aRule+"/edit", form)
	if res.status != http.StatusSeeOther {
		t.Fatalf("edit: %d %.400s", res.status, res.body)
	}
	after := b.get(res.header.Get("Location"))
	for _, want := range []string{"Rule saved.", `data-type="manual_override"`, "Use ripgrep (rg), never grep -r.", "not vendored"} {
		if !strings.Contains(after.body, want) {
			t.Errorf("rule page after the edit lacks %q", want)
		}
	}
	var rule struct {
		Text, Severity string
		Scope          struct {
			ExcludeTags []string `json:"exclude_tags"`
		}
	}
	b.api(http.MethodGet, "/v1/rules/"+aRule, "", "", &rule)
	if rule.Text != "Use ripgrep (rg), never grep -r." || rule.Severity != "must" || len(rule.Scope.ExcludeTags) != 1 {
		t.Fatalf("rule after the edit: %+v", rule)
	}
	// The same form again changes nothing: refused with the reason.
	again := b.post("/rules/"+aRule+"/edit", form)
	if again.status != http.StatusBadRequest || !strings.Contains(again.body, "nothing to update") {
		t.Fatalf("an edit changing nothing: %d %.300s", again.status, again.body)
	}
}
