package mcp

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/internal/tenant/tenanttest"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/server"
	"github.com/lexsona/lexsona/server/servertest"
	"github.com/lexsona/lexsona/store"
)

// tenantBackends are the stores every tenant test runs on.
var tenantBackends = []string{"sqlite", "postgres"}

// Keys of the tenant tests' HTTP server: alice's and bob's.
const (
	aliceKey = "alice-write-0123456789a"
	bobKey   = "bob-write-0123456789abc"
)

// tenantEnv is an MCP server and, over the same stores, the HTTP API of
// `lexsona serve` (httptest over server.Handler), with the default tenant
// and the named tenants alice and bob.
type tenantEnv struct {
	servertest.Client
	t   *testing.T
	srv *Server
}

// newTenantEnv starts both over backend "sqlite" (files in a temp dir) or
// "postgres" (a schema of LEXSONA_TEST_PG, its tenants' schemas and roles
// dropped at the end).
func newTenantEnv(t *testing.T, backend string) *tenantEnv {
	t.Helper()
	var base string
	switch backend {
	case "sqlite":
		base = filepath.Join(t.TempDir(), "lexsona.db")
	case "postgres":
		base = testenv.PGSchemaURL(t)
		tenanttest.DropPG(t, base, "alice", "bob")
	default:
		t.Fatalf("backend %q", backend)
	}
	db, err := store.OpenWith(context.Background(), base, store.Options{Clock: time.Now})
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	emb := MustLexical(t, db)
	opts := testOptions(t)
	tenants := tenant.MemoryOpener{Stores: tenant.NewStores(base, discardLogger(), time.Now), Options: opts}
	tenantEmb := setup.TenantEmbedder(setup.Config{Embedder: models.Options{Backend: "lexical"}, Logger: discardLogger()})

	srv, err := New(Config{Memory: tenant.MemoryOver(db, opts), Embedder: emb, Logger: discardLogger(),
		Tenants: tenants, TenantEmbedder: tenantEmb})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	keys, err := tenant.ParseKeys("alice:write:" + aliceKey + ",bob:write:" + bobKey)
	if err != nil {
		t.Fatal(err)
	}
	httpSrv, err := server.New(server.Config{Memory: tenant.MemoryOver(db, opts), Embedder: emb, APIKeys: keys, Logger: discardLogger(),
		Now: func() time.Time { return testNow }, Tenants: tenants, TenantEmbedder: tenantEmb})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	ts := httptest.NewServer(httpSrv.Handler())
	t.Cleanup(func() {
		ts.Close()
		if err := httpSrv.Close(); err != nil {
			t.Errorf("closing the HTTP server: %v", err)
		}
		if err := srv.Close(); err != nil {
			t.Errorf("closing the MCP server: %v", err)
		}
	})
	return &tenantEnv{Client: servertest.Client{T: t, URL: ts.URL}, t: t, srv: srv}
}
