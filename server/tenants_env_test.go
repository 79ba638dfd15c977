package server

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/internal/tenant/tenanttest"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/server/servertest"
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
	servertest.Client
	t    *testing.T
	srv  *Server
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
	return &tenantEnv{Client: servertest.Client{T: t, URL: ts.URL}, t: t, srv: srv, base: base}
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
	return &tenantEnv{Client: servertest.Client{T: t, URL: "http://" + srv.Addr()}, t: t, srv: srv, base: base}
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
	db, err := store.OpenWith(context.Background(), base, store.Options{Clock: time.Now})
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
		Tenants:        tenant.MemoryOpener{Stores: tenant.NewStores(base, discardLogger(), time.Now), Options: memory.Options{Classifier: bands, Now: func() time.Time { return testNow }}},
		TenantEmbedder: setup.TenantEmbedder(embCfg),
	}
	cfg.Memory = memoryOver(db, bands, &cfg.Now)
	if edit != nil {
		edit(&cfg)
	}
	return cfg, base
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

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
