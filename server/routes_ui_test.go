package server

import (
	"bytes"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/server/servertest"
)

// uiSession is a review page session of a test server: its cookie and form
// token, taken from the registry page.
type uiSession struct {
	cookie []*http.Cookie
	csrf   string
}

var uiCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (e *testEnv) uiSession(t *testing.T) uiSession {
	t.Helper()
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/registry", nil))
	m := uiCSRF.FindStringSubmatch(rec.Body.String())
	if rec.Code != http.StatusOK || m == nil {
		t.Fatalf("GET /registry: %d %.300s", rec.Code, rec.Body)
	}
	return uiSession{rec.Result().Cookies(), m[1]}
}

// upload posts yaml to a registry upload route of the page as the page's
// form does (multipart, same origin).
func (e *testEnv) upload(t *testing.T, s uiSession, path, yaml string) *httptest.ResponseRecorder {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("csrf", s.csrf)
	f, _ := w.CreateFormFile("file", "team.yaml")
	_, _ = io.WriteString(f, yaml)
	_ = w.Close()
	req := httptest.NewRequest(http.MethodPost, path, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for _, c := range s.cookie {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec
}

// TestUIRoutesAreLabelled: the review page's requests appear in the
// metrics and the access log under their page's route, not "unmatched".
func TestUIRoutesAreLabelled(t *testing.T) {
	var logs bytes.Buffer
	e, _ := newFakeEnv(t, func(c *Config) { c.Logger = slog.New(slog.NewJSONHandler(&logs, nil)) }, &servertest.Memory{}, nil)
	for _, c := range []struct{ path, route string }{
		{"/", "/ui/"},
		{"/rules", "/ui/rules"},
		{"/rules/" + ruleSed, "/ui/rules/:id"},
		{"/rules/no.such-rule", "/ui/rules/:id"},
		{"/persona", "/ui/persona"},
		{"/ui/assets/ui.css", "/ui/assets/:name"},
	} {
		t.Run(c.path, func(t *testing.T) {
			logs.Reset()
			e.get(c.path)
			if want := `"route":"` + c.route + `"`; !strings.Contains(logs.String(), want) {
				t.Errorf("access log %s lacks %s", logs.String(), want)
			}
		})
	}
	e.do(request{method: http.MethodGet, path: "/no/such/page"})
	metrics := string(e.get("/metrics").body)
	for _, want := range []string{`route="/ui/rules/:id"`, `route="/ui/"`, `route="/ui/assets/:name"`, `route="unmatched"`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestUIRegistryUploadLimits: a registry upload through the page has the
// registry sync route's body limit, not the generic one, and its time
// limit; the page's other posts keep the generic limits.
func TestUIRegistryUploadLimits(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.BodyLimit = 8 << 10; c.RegistryBodyLimit = 64 << 10 })
	s := e.uiSession(t)
	rule := "version: 1\nname: team\nrules:\n  - rule_id: team.one\n    category: code_style\n    severity: should\n    template: \"First rule\"\n"
	padded := rule + "# " + strings.Repeat("x", 32<<10) + "\n"
	if rec := e.upload(t, s, "/registry/preview", padded); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "team.one") {
		t.Errorf("a 32 KiB upload over the generic 8 KiB limit: %d %.500s", rec.Code, rec.Body)
	}
	huge := rule + "# " + strings.Repeat("x", 200<<10) + "\n"
	if rec := e.upload(t, s, "/registry/preview", huge); rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("a 200 KiB upload over the 64 KiB registry limit: %d %.300s", rec.Code, rec.Body)
	}
	if rec := e.upload(t, s, "/rules/"+ruleSed+"/edit", padded); rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("a 32 KiB edit form over the generic 8 KiB limit: %d %.300s", rec.Code, rec.Body)
	}

	// The time limit each route runs under: the registry's for the uploads.
	for _, c := range []struct {
		method, path string
		timeout      time.Duration
	}{
		{http.MethodPost, "/registry/preview", e.srv.cfg.SyncTimeout},
		{http.MethodPost, "/registry/sync", e.srv.cfg.SyncTimeout},
		{http.MethodPost, "/rules/" + ruleSed + "/edit", e.srv.cfg.RequestTimeout},
		{http.MethodGet, "/registry", e.srv.cfg.RequestTimeout},
	} {
		var got time.Duration
		var ok bool
		h := e.srv.uiRouteMiddleware(e.srv.newUI())(e.srv.limitsMiddleware(func(c echo.Context) error {
			var dl time.Time
			dl, ok = c.Request().Context().Deadline()
			got = time.Until(dl)
			return nil
		}))
		ctx := e.srv.echo.NewContext(httptest.NewRequest(c.method, c.path, nil), httptest.NewRecorder())
		if err := h(ctx); err != nil || !ok {
			t.Fatalf("%s %s: %v, deadline set %v", c.method, c.path, err, ok)
		}
		// The deadline is the route's limit from when it was set: within a minute below it.
		if got > c.timeout || got < c.timeout-time.Minute {
			t.Errorf("%s %s runs %v before its deadline, want %v", c.method, c.path, got, c.timeout)
		}
	}
}

// uiBrowser is a review page session on a tenant server: a client with a
// cookie jar that does not follow redirects.
type uiBrowser struct {
	t    *testing.T
	url  string
	c    *http.Client
	csrf string
}

// uiLogin logs key in to the review page of e.
func (e *tenantEnv) uiLogin(t *testing.T, key string) *uiBrowser {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &uiBrowser{t: t, url: e.URL, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	st, body := b.get("/login")
	m := uiCSRF.FindStringSubmatch(body)
	if st != http.StatusOK || m == nil {
		t.Fatalf("GET /login: %d %.300s", st, body)
	}
	if st, body := b.post("/login", url.Values{"csrf": {m[1]}, "key": {key}}); st != http.StatusSeeOther {
		t.Fatalf("login: %d %.300s", st, body)
	}
	st, body = b.get("/registry")
	if m = uiCSRF.FindStringSubmatch(body); st != http.StatusOK || m == nil {
		t.Fatalf("GET /registry after the login: %d %.300s", st, body)
	}
	b.csrf = m[1]
	return b
}

func (b *uiBrowser) get(path string) (int, string) {
	req, _ := http.NewRequest(http.MethodGet, b.url+path, nil)
	return b.do(req)
}

// post sends a form as the page does (same origin), with the session's
// token unless form has one.
func (b *uiBrowser) post(path string, form url.Values) (int, string) {
	if form.Get("csrf") == "" {
		form.Set("csrf", b.csrf)
	}
	req, _ := http.NewRequest(http.MethodPost, b.url+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return b.do(req)
}

func (b *uiBrowser) do(req *http.Request) (int, string) {
	b.t.Helper()
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// TestUITenantsSharedRegistry: on the review page, each key sees its own
// tenant; a registry its owner syncs on the page reaches the tenants it is
// shared with (and only them), who may neither sync nor preview it there
// nor change its rules (403, as on the API).
func TestUITenantsSharedRegistry(t *testing.T) {
	for _, backend := range tenantBackends {
		t.Run(backend, func(t *testing.T) {
			e := newTenantEnv(t, backend, func(c *Config) {
				c.SharedRegistries = []RegistryShare{{Owner: "default", Name: "team", To: []string{"alice"}}}
			})
			team := func(text string) string {
				return "version: 1\nname: team\nrules:\n  - rule_id: team.use-just\n    category: tool_preference\n    severity: should\n" +
					"    template: \"" + text + "\"\n    examples: [\"use just not make\"]\n"
			}
			op, alice := e.uiLogin(t, opKey), e.uiLogin(t, aliceKey)
			if st, body := op.post("/registry/sync", url.Values{"yaml": {team("Run tasks with just")}}); st != http.StatusOK {
				t.Fatalf("the owner's page sync: %d %.300s", st, body)
			}
			if b := e.Must(200, aliceKey, http.MethodGet, "/v1/rules/team.use-just", ""); !strings.Contains(b, "Run tasks with just") {
				t.Errorf("the shared rule at alice's: %s", b)
			}
			e.Must(404, bobKey, http.MethodGet, "/v1/rules/team.use-just", "")

			for _, c := range []struct {
				path string
				form url.Values
			}{
				{"/registry/sync", url.Values{"yaml": {team("Run tasks with make")}}},
				{"/registry/sync", url.Values{"yaml": {team("Run tasks with make")}, "name": {"team"}}},
				{"/registry/preview", url.Values{"yaml": {team("Run tasks with make")}}},
				{"/rules/team.use-just/archive", url.Values{}},
				{"/rules/team.use-just/edit", url.Values{"text": {"Run tasks with make"}}},
			} {
				if st, body := alice.post(c.path, c.form); st != http.StatusForbidden || !strings.Contains(body, "read-only") {
					t.Errorf("alice POST %s %v: %d, want 403 read-only: %.300s", c.path, c.form, st, body)
				}
			}
			b := e.Must(200, aliceKey, http.MethodGet, "/v1/rules/team.use-just", "")
			if !strings.Contains(b, "Run tasks with just") || jsonField(t, b, "status") == "archived" {
				t.Errorf("the shared rule after alice's refused posts: %s", b)
			}
			st, page := alice.get("/rules/team.use-just")
			if st != http.StatusOK || !strings.Contains(page, `data-testid="shared-rule"`) || strings.Contains(page, `action="/rules/team.use-just/archive"`) {
				t.Errorf("alice's page of the shared rule: %d, note shown %v, archive form shown %v", st,
					strings.Contains(page, `data-testid="shared-rule"`), strings.Contains(page, `action="/rules/team.use-just/archive"`))
			}
			// The owner's page keeps its forms, and its change reaches alice.
			if st, page := op.get("/rules/team.use-just"); st != http.StatusOK || strings.Contains(page, `data-testid="shared-rule"`) || !strings.Contains(page, `action="/rules/team.use-just/archive"`) {
				t.Errorf("the owner's page of the rule: %d", st)
			}
			if st, body := op.post("/registry/sync", url.Values{"yaml": {team("Run every task with just")}}); st != http.StatusOK {
				t.Fatalf("the owner's second page sync: %d %.300s", st, body)
			}
			if st, page := alice.get("/rules/team.use-just"); st != http.StatusOK || !strings.Contains(page, "Run every task with just") {
				t.Errorf("alice's page after the owner's change: %d", st)
			}
			// Alice's own registries are hers to sync.
			own := strings.ReplaceAll(team("Use the amber formatter"), "team", "amberpack")
			if st, body := alice.post("/registry/sync", url.Values{"yaml": {own}}); st != http.StatusOK {
				t.Errorf("alice syncing her own registry: %d %.300s", st, body)
			}
			e.Must(404, opKey, http.MethodGet, "/v1/rules/amberpack.use-just", "")
		})
	}
}
