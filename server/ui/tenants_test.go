package ui_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/server"
	"github.com/lexsona/lexsona/store"
)

// Keys of the tenant tests: alice (write and read) and bob.
const (
	aliceKey  = "alice-write-0123456789a"
	aliceRead = "alice-read-0123456789ab"
	bobKey    = "bob-write-0123456789abc"
)

// newTenantEnv starts a server whose keys (ParseAPIKeys syntax) may name
// tenants, each with a SQLite store beside the default one.
func newTenantEnv(t *testing.T, keys string) *env {
	t.Helper()
	ctx := context.Background()
	base := filepath.Join(t.TempDir(), "lexsona.db")
	db, err := store.OpenWith(ctx, base, store.Options{Clock: time.Now})
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	embCfg := setup.Config{Embedder: models.Options{Backend: "lexical"}, Logger: discard()}
	emb, err := setup.OpenEmbedder(ctx, embCfg)
	if err != nil {
		t.Fatalf("lexical embedder: %v", err)
	}
	t.Cleanup(func() { emb.Close() })
	k, err := server.ParseAPIKeys(keys)
	if err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t)
	srv, err := server.New(server.Config{Memory: tenant.MemoryOver(db, opts), Embedder: emb, APIKeys: k, Logger: discard(),
		Tenants: tenant.MemoryOpener{Stores: tenant.NewStores(base, discard(), time.Now), Options: opts}, TenantEmbedder: setup.TenantEmbedder(embCfg),
		Now: func() time.Time { return testNow },
	})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ts.Close()
		if err := srv.Close(); err != nil {
			t.Errorf("closing the server: %v", err)
		}
	})
	return &env{t: t, url: ts.URL, ts: ts}
}

// seedTenant gives key's tenant, through the API, a rule, a registry and an
// inbox item, all named with marker.
func seedTenant(t *testing.T, b *browser, key, marker string) {
	t.Helper()
	if st := b.api(http.MethodPost, "/v1/rules", key, `{"rule_id":"`+marker+`.only-rule","category":"tool_preference","text":"always run the `+marker+` checker"}`, nil); st != http.StatusCreated {
		t.Fatalf("%s: creating a rule: %d", marker, st)
	}
	if st := b.api(http.MethodPost, "/v1/corrections", key, `{"text":"always name the `+marker+` kubernetes namespaces in lowercase"}`, nil); st != http.StatusCreated {
		t.Fatalf("%s: a correction: %d", marker, st)
	}
	yaml := "version: 1\nname: " + marker + "pack\nrules:\n  - rule_id: " + marker + ".pack-rule\n    category: code_style\n    severity: should\n    template: \"Format " + marker + " files\"\n"
	req, _ := http.NewRequest(http.MethodPost, b.e.url+"/v1/registry/sync", strings.NewReader(yaml))
	req.Header.Set("Content-Type", "application/yaml")
	req.Header.Set("Authorization", "Bearer "+key)
	if p := b.do(req); p.status != http.StatusOK {
		t.Fatalf("%s: registry sync: %d %.300s", marker, p.status, p.body)
	}
}

// TestTenantsSeeOnlyTheirOwnMemory: each tenant's key logs in to the page
// of its own tenant, and every page shows that tenant's rules, inbox,
// persona and registries only; another tenant's rule is 404, as on the API.
func TestTenantsSeeOnlyTheirOwnMemory(t *testing.T) {
	// No key of the default tenant: the page needs none.
	e := newTenantEnv(t, "alice:write:"+aliceKey+",bob:write:"+bobKey)
	seed := e.browserDefault()
	seedTenant(t, seed, aliceKey, "alice")
	seedTenant(t, seed, bobKey, "bob")
	for _, c := range []struct{ key, me, other string }{{aliceKey, "alice", "bob"}, {bobKey, "bob", "alice"}} {
		t.Run(c.me, func(t *testing.T) {
			b := e.browserDefault()
			home := b.login(t, c.key)
			if !strings.Contains(home.body, `data-testid="tenant">`+c.me+`<`) {
				t.Errorf("the page does not name tenant %s: %.600s", c.me, home.body)
			}
			pages := map[string]page{"/": home}
			for _, path := range []string{"/rules", "/persona", "/registry"} {
				if pages[path] = b.get(path); pages[path].status != http.StatusOK {
					t.Fatalf("%s: %d %.300s", path, pages[path].status, pages[path].body)
				}
			}
			for path, want := range map[string]string{
				"/":         c.me + " kubernetes namespaces",
				"/rules":    c.me + ".only-rule",
				"/persona":  c.me + ".only-rule",
				"/registry": c.me + "pack",
			} {
				if !strings.Contains(pages[path].body, want) {
					t.Errorf("%s of %s lacks %q", path, c.me, want)
				}
			}
			for path, p := range pages {
				if strings.Contains(p.body, c.other) {
					t.Errorf("%s of %s shows %s's memory", path, c.me, c.other)
				}
			}
			if p := b.get("/rules/" + c.me + ".pack-rule"); p.status != http.StatusOK {
				t.Errorf("own registry rule: %d", p.status)
			}
			if p := b.get("/rules/" + c.other + ".only-rule"); p.status != http.StatusNotFound {
				t.Errorf("%s's rule on %s's page: %d, want 404", c.other, c.me, p.status)
			}
		})
	}
}

// TestTenantSessionCannotActOnAnotherTenant: a session of alice posting
// actions on bob's rule ids gets 404 (bob's rule is unknown to her), and
// bob's rule is unchanged; a registry she syncs on the page is hers only.
func TestTenantSessionCannotActOnAnotherTenant(t *testing.T) {
	e := newTenantEnv(t, "alice:write:"+aliceKey+",bob:write:"+bobKey)
	b := e.browserDefault()
	seedTenant(t, b, bobKey, "bob")
	b.login(t, aliceKey)
	tok := csrf(t, b.get("/rules"))
	for _, action := range []string{"archive", "edit", "restore", "accept", "reject", "merge"} {
		form := url.Values{"csrf": {tok}, "text": {"changed by alice"}, "into": {aRule}}
		if p := b.post("/rules/bob.only-rule/"+action, form); p.status != http.StatusNotFound {
			t.Errorf("alice's %s of bob's rule: %d, want 404: %.300s", action, p.status, p.body)
		}
	}
	var rule struct{ Status, Text string }
	if st := b.api(http.MethodGet, "/v1/rules/bob.only-rule", bobKey, "", &rule); st != http.StatusOK || rule.Status == "archived" || rule.Text == "changed by alice" {
		t.Fatalf("bob's rule after alice's posts: %d %+v", st, rule)
	}

	yaml := "version: 1\nname: alicepage\nrules:\n  - rule_id: alice.page-rule\n    category: code_style\n    severity: should\n    template: \"Synced on the page\"\n"
	if p := b.post("/registry/sync", url.Values{"csrf": {tok}, "yaml": {yaml}}); p.status != http.StatusOK {
		t.Fatalf("alice's page sync: %d %.300s", p.status, p.body)
	}
	if st := b.api(http.MethodGet, "/v1/rules/alice.page-rule", aliceKey, "", nil); st != http.StatusOK {
		t.Errorf("alice's page-synced rule on her API: %d", st)
	}
	if st := b.api(http.MethodGet, "/v1/rules/alice.page-rule", bobKey, "", nil); st != http.StatusNotFound {
		t.Errorf("alice's page-synced rule on bob's API: %d, want 404", st)
	}
}

// TestTamperedSessionTenantIsRefused: a session cookie whose tenant or
// access is rewritten no longer verifies: pages send to the login form and
// posts are refused.
func TestTamperedSessionTenantIsRefused(t *testing.T) {
	e := newTenantEnv(t, "alice:write:"+aliceKey+",alice:read:"+aliceRead+",bob:write:"+bobKey)
	b := e.browserDefault()
	seedTenant(t, b, bobKey, "bob")
	b.login(t, aliceRead)
	tok := csrf(t, b.get("/rules"))
	u, _ := url.Parse(e.url)
	var value string
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == "lexsona_session" {
			value = c.Value
		}
	}
	p64, mac, ok := strings.Cut(value, ".")
	payload, err := base64.RawURLEncoding.DecodeString(p64)
	if !ok || err != nil || !strings.Contains(string(payload), "|read|alice|") {
		t.Fatalf("session cookie %q (payload %q): want the read level and tenant alice", value, payload)
	}
	for _, c := range []struct{ name, from, to string }{
		{"tenant", "|alice|", "|bob|"},
		{"tenant and level", "|read|alice|", "|write|bob|"},
		{"level", "|read|", "|write|"},
	} {
		t.Run(c.name, func(t *testing.T) {
			forged := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(payload), c.from, c.to, 1))) + "." + mac
			f := e.browserDefault()
			f.c.Jar.SetCookies(u, []*http.Cookie{{Name: "lexsona_session", Value: forged}})
			if p := f.get("/rules/bob.only-rule"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/login") {
				t.Errorf("GET with the forged cookie: %d to %q, want 303 to /login", p.status, p.header.Get("Location"))
			}
			if p := f.post("/rules/bob.only-rule/archive", url.Values{"csrf": {tok}}); p.status != http.StatusForbidden {
				t.Errorf("POST with the forged cookie: %d, want 403", p.status)
			}
		})
	}
	var rule struct{ Status string }
	if b.api(http.MethodGet, "/v1/rules/bob.only-rule", bobKey, "", &rule); rule.Status == "archived" {
		t.Fatal("a forged session archived bob's rule")
	}
}

// TestTenantReadKeyCannotWrite: a read key of a named tenant sees its
// tenant's pages without write forms, and every change it posts is 403.
func TestTenantReadKeyCannotWrite(t *testing.T) {
	e := newTenantEnv(t, "alice:write:"+aliceKey+",alice:read:"+aliceRead)
	b := e.browserDefault()
	seedTenant(t, b, aliceKey, "alice")
	home := b.login(t, aliceRead)
	if !strings.Contains(home.body, "read only") || !strings.Contains(home.body, "alice kubernetes namespaces") {
		t.Fatalf("alice's read session home: %.600s", home.body)
	}
	rp := b.get("/rules/alice.only-rule")
	if rp.status != http.StatusOK || strings.Contains(rp.body, `action="/rules/alice.only-rule/archive"`) {
		t.Fatalf("alice's rule with a read key: %d, or a write form shown", rp.status)
	}
	tok := csrf(t, rp)
	yaml := "version: 1\nname: alicepack\nrules: []\n"
	for _, path := range []string{"/rules/alice.only-rule/archive", "/rules/alice.only-rule/edit", "/registry/sync", "/registry/preview", "/confirmations/1"} {
		if p := b.post(path, url.Values{"csrf": {tok}, "text": {"changed"}, "yaml": {yaml}, "action": {"reject"}}); p.status != http.StatusForbidden {
			t.Errorf("POST %s with alice's read key: %d, want 403", path, p.status)
		}
	}
	var rule struct{ Status, Text string }
	if b.api(http.MethodGet, "/v1/rules/alice.only-rule", aliceRead, "", &rule); rule.Status == "archived" || rule.Text == "changed" {
		t.Fatalf("a read session changed the rule: %+v", rule)
	}
	if st := b.api(http.MethodGet, "/v1/rules/alice.pack-rule", aliceRead, "", nil); st != http.StatusOK {
		t.Fatalf("alice's registry after the read session's sync: %d (it was removed)", st)
	}
}

// TestOpenServerHasNoTenantBadge: without keys the page is the default
// tenant's, as it always was, and names no tenant.
func TestOpenServerHasNoTenantBadge(t *testing.T) {
	b := newEnv(t, server.APIKeys{}, false).browserDefault()
	p := b.get("/rules/" + aRule)
	if p.status != http.StatusOK || strings.Contains(p.body, `data-testid="tenant"`) {
		t.Fatalf("open server: %d, tenant badge shown: %v", p.status, strings.Contains(p.body, `data-testid="tenant"`))
	}
}
