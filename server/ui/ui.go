// Package ui is LexSona's review page, served by `lexsona serve` at "/":
// the inbox of pending confirmations, candidate rules and exception
// proposals; the rules with their confidence, evidence and distance to
// activation; a rule's receipts and confidence chart; the persona preview
// with why each rule is in or out; and the registries in force with a
// previewed sync.
//
// It is a front end over the use cases it declares (Memory, which
// *memory.Service satisfies) only: server-rendered html/template
// pages with a small stylesheet and script embedded in the binary, no build
// step. It is mounted as echo middleware after the server's own (browser
// guard, limits), so the API's defences apply to it too, and adds its own:
//   - every response carries a strict Content-Security-Policy (scripts and
//     styles from the page's own origin only, no inline script);
//   - every form post carries a CSRF token tied to the session cookie
//     (missing or wrong: 403);
//   - with API keys configured, a login form asks for a key once and keeps
//     an HMAC-signed session in an HttpOnly, SameSite=Strict cookie (Secure
//     over TLS); a read key sees every page, write buttons are hidden and
//     every change it posts is refused (403).
//
// A server with tenants serves each one its own memory: the key logged in
// with names its tenant, the session cookie carries it (signed, so it
// cannot be changed), and every page and action reads and writes that
// tenant's memory only. Without keys there is one tenant, the default.
package ui

import (
	"context"
	"embed"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// Config configures the review page.
type Config struct {
	// MemoryFor returns tenant's memory (tenant.Default for the default
	// tenant), the use-case layer every page reads and writes through; its
	// errors are shown as the page's (EUNAVAILABLE: 503). When nil, Memory
	// serves the default tenant and no other.
	MemoryFor func(ctx context.Context, tenant string) (Memory, error)
	// Memory is the default tenant's memory, for a page without MemoryFor.
	Memory Memory
	// Keys are the API keys the login form accepts, each of one tenant;
	// with none the page is open, serves the default tenant, and every
	// visitor may write.
	Keys []Key
	// OnRegistrySynced, when set, is called after the page synced tenant's
	// registry name (the server passes it on to the tenants it is shared
	// with).
	OnRegistrySynced func(ctx context.Context, tenant, name string)
	// SharedReadOnly, when set, reports whether tenant receives registry
	// name read-only from another tenant: the page then refuses (403) to
	// sync or preview it and to edit, archive or restore its rules.
	SharedReadOnly func(tenant, name string) bool
	// Logger gets internal errors (slog.Default()).
	Logger *slog.Logger
	// Now is the clock (time.Now).
	Now func() time.Time
	// SessionTTL is how long a login lasts (DefaultSessionTTL).
	SessionTTL time.Duration
}

// Key is an API key the login form accepts.
type Key struct {
	Token string
	// Write: the key may change things; otherwise it only reads.
	Write bool
	// Tenant is the tenant whose memory the key's sessions see ("":
	// the default tenant).
	Tenant string
}

// DefaultSessionTTL is how long a login lasts by default.
const DefaultSessionTTL = 12 * time.Hour

// UI is the review page. Create it with New and mount Middleware on the
// server's echo instance.
type UI struct {
	memFor   func(ctx context.Context, tenant string) (Memory, error)
	synced   func(ctx context.Context, tenant, name string)
	readOnly func(tenant, name string) bool
	log      *slog.Logger
	now      func() time.Time
	keys     *keyring
	sess     *sessions
	mux      *http.ServeMux
}

// New builds the review page. It panics when both MemoryFor and Memory are
// nil (a programming error of the caller).
func New(cfg Config) *UI {
	if cfg.MemoryFor == nil {
		if cfg.Memory == nil {
			panic("ui: Config.MemoryFor or Config.Memory is required")
		}
		mem := cfg.Memory
		cfg.MemoryFor = func(_ context.Context, name string) (Memory, error) {
			if name != tenant.Default {
				return nil, engine.Errorf(engine.EUNAVAILABLE, "tenant %s: this page serves the default tenant only", name)
			}
			return mem, nil
		}
	}
	if cfg.OnRegistrySynced == nil {
		cfg.OnRegistrySynced = func(context.Context, string, string) {}
	}
	if cfg.SharedReadOnly == nil {
		cfg.SharedReadOnly = func(string, string) bool { return false }
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	u := &UI{
		memFor: cfg.MemoryFor, synced: cfg.OnRegistrySynced, readOnly: cfg.SharedReadOnly,
		log: cfg.Logger, now: cfg.Now,
		keys: newKeyring(cfg.Keys),
		sess: newSessions(cfg.SessionTTL, cfg.Now),
		mux:  http.NewServeMux(),
	}
	u.routes()
	return u
}

// routes registers every page and action. Patterns are exact paths: a
// request none of them matches goes on to the API.
func (u *UI) routes() {
	u.mux.Handle("GET /ui/assets/{name}", http.HandlerFunc(u.asset))
	u.mux.HandleFunc("GET /login", u.loginPage)
	u.mux.HandleFunc("POST /login", u.post(u.login, postLogin))
	u.mux.HandleFunc("POST /logout", u.post(u.logout, postAny))

	u.mux.HandleFunc("GET /{$}", u.page(u.inbox, "done"))
	u.mux.HandleFunc("POST /confirmations/{id}", u.post(u.confirm, postWrite))
	u.mux.HandleFunc("GET /rules", u.page(u.rules, append([]string{"q", "category", "severity", "state", "registry", "exclude_tags"}, scopeParams...)...))
	u.mux.HandleFunc("GET /rules/{id}", u.page(u.rule, "done"))
	u.mux.HandleFunc("POST /rules/{id}/edit", u.post(u.editRule, postWrite))
	u.mux.HandleFunc("POST /rules/{id}/archive", u.post(u.archiveRule, postWrite))
	u.mux.HandleFunc("POST /rules/{id}/restore", u.post(u.restoreRule, postWrite))
	u.mux.HandleFunc("POST /rules/{id}/accept", u.post(u.reviewCandidate(true), postWrite))
	u.mux.HandleFunc("POST /rules/{id}/reject", u.post(u.reviewCandidate(false), postWrite))
	u.mux.HandleFunc("POST /rules/{id}/merge", u.post(u.mergeRule, postWrite))
	u.mux.HandleFunc("GET /persona", u.page(u.persona, scopeParams...))
	u.mux.HandleFunc("GET /registry", u.page(u.registry))
	u.mux.HandleFunc("GET /learned", u.page(u.learned, "done"))
	u.mux.HandleFunc("POST /events/{id}/retract", u.post(u.retract, postWrite))
	u.mux.HandleFunc("POST /registry/preview", u.post(u.registryPreview, postWrite))
	u.mux.HandleFunc("POST /registry/sync", u.post(u.registrySync, postWrite))
}

// Middleware serves the review page's paths and passes every other request
// (the API, probes, metrics) to next.
func (u *UI) Middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if _, pattern := u.mux.Handler(r); pattern == "" {
			return next(c)
		}
		u.mux.ServeHTTP(c.Response(), r)
		return nil
	}
}

// Route returns the route label of a request the review page serves, for
// metrics and access logs: its page's pattern under "/ui", in the echo
// style of the API's routes ("/ui/rules/:id", "/ui/" for the inbox); ""
// when the page does not serve it (it goes on to the API).
func (u *UI) Route(r *http.Request) string {
	_, pattern := u.mux.Handler(r)
	if pattern == "" {
		return ""
	}
	_, p, _ := strings.Cut(pattern, " ")
	parts := strings.Split(p, "/")
	for i, s := range parts {
		switch {
		case s == "{$}":
			parts[i] = ""
		case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}"):
			parts[i] = ":" + strings.TrimSuffix(s[1:len(s)-1], "...")
		}
	}
	p = strings.Join(parts, "/")
	if !strings.HasPrefix(p, "/ui/") {
		p = "/ui" + p
	}
	return p
}

// ServeHTTP serves the review page alone (paths it does not know: 404),
// for tests and embedding in another mux.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) { u.mux.ServeHTTP(w, r) }
