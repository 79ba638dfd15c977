package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/internal/tenant/tenanttest"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/store"
)

// Keys of the tenant tests: the operator (default tenant), alice (write
// and read), bob and carol (who writes nothing).
const (
	opKey     = "op-write-0123456789abc"
	aliceKey  = "alice-write-0123456789a"
	aliceRead = "alice-read-0123456789ab"
	bobKey    = "bob-write-0123456789abc"
	carolKey  = "carol-write-0123456789a"
)

var tenantKeys = "write:" + opKey + ",alice:write:" + aliceKey + ",alice:read:" + aliceRead + ",bob:write:" + bobKey + ",carol:write:" + carolKey

// tenantEnv is a real HTTP server (httptest over Handler) with the default
// tenant and the named tenants alice and bob, on one backend.
type tenantEnv struct {
	t    *testing.T
	srv  *Server
	url  string
	base string // the default store's DSN
}

// newTenantEnv starts a tenant server (httptest over Handler) over backend
// "sqlite" (files in a temp dir) or "postgres" (a schema of
// LEXSONA_TEST_PG, its tenants' schemas and roles dropped at the end); edit
// adjusts the config.
func newTenantEnv(t *testing.T, backend string, edit func(*Config)) *tenantEnv {
	t.Helper()
	cfg, base := tenantConfig(t, backend, edit)
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ts.Close()
		if err := srv.Close(); err != nil {
			t.Errorf("closing the server: %v", err)
		}
	})
	return &tenantEnv{t: t, srv: srv, url: ts.URL, base: base}
}

// newTenantEnvRun is newTenantEnv with the server running as lexsona serve
// runs it (Start and Run on a free loopback port, with their background
// work), stopped at the end of the test.
func newTenantEnvRun(t *testing.T, backend string, edit func(*Config)) *tenantEnv {
	t.Helper()
	cfg, base := tenantConfig(t, backend, edit)
	cfg.Addr = "127.0.0.1:0"
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return &tenantEnv{t: t, srv: srv, url: "http://" + srv.Addr(), base: base}
}

// tenantConfig is the config of a tenant server over backend (see
// newTenantEnv), edited by edit, and the default store's DSN.
func tenantConfig(t *testing.T, backend string, edit func(*Config)) (Config, string) {
	t.Helper()
	var base string
	switch backend {
	case "sqlite":
		base = filepath.Join(t.TempDir(), "lexsona.db")
	case "postgres":
		base = testenv.PGSchemaURL(t)
		tenanttest.DropPG(t, base, "alice", "bob", "carol")
	default:
		t.Fatalf("backend %q", backend)
	}
	db, err := store.Open(context.Background(), base)
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	emb := MustLexical(t, db)
	keys, err := ParseAPIKeys(tenantKeys)
	if err != nil {
		t.Fatal(err)
	}
	embCfg := setup.Config{Embedder: models.Options{Backend: "lexical"}, Logger: discardLogger()}
	bands := testBands(t)
	cfg := Config{Embedder: emb, APIKeys: keys, Logger: discardLogger(), Now: func() time.Time { return testNow },
		Tenants:        tenant.MemoryOpener{Stores: tenant.NewStores(base, discardLogger()), Options: memory.Options{Classifier: bands, Now: func() time.Time { return testNow }}},
		TenantEmbedder: setup.TenantEmbedder(embCfg),
	}
	cfg.Memory = memoryOver(db, bands, &cfg.Now)
	if edit != nil {
		edit(&cfg)
	}
	return cfg, base
}

// call makes one request with key (none when empty) and returns the status
// and body.
func (e *tenantEnv) call(key, method, path, body string, header ...string) (int, string) {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// must makes a request and fails unless it answers want; it returns the body.
func (e *tenantEnv) must(want int, key, method, path, body string, header ...string) string {
	e.t.Helper()
	status, b := e.call(key, method, path, body, header...)
	if status != want {
		e.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, status, want, b)
	}
	return b
}

// field decodes body and returns its top-level field name as a string.
func jsonField(t *testing.T, body, name string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	switch v := m[name].(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// ruleIDs are the ids of GET /v1/rules's answer.
func ruleIDs(t *testing.T, body string) []string {
	t.Helper()
	var l struct {
		Rules []struct {
			ID string `json:"rule_id"`
		} `json:"rules"`
	}
	if err := json.Unmarshal([]byte(body), &l); err != nil {
		t.Fatalf("decoding rules %s: %v", body, err)
	}
	var ids []string
	for _, r := range l.Rules {
		ids = append(ids, r.ID)
	}
	return ids
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
