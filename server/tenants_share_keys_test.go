package server

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/store"
)

// TestSharesNeedTenantsWithKeys: a registry share whose owner or receiver
// has no API key (a misspelt name, or no keys at all) is refused at start,
// naming the tenant, instead of sharing with a memory nobody can reach.
func TestSharesNeedTenantsWithKeys(t *testing.T) {
	base := filepath.Join(t.TempDir(), "lexsona.db")
	db, err := store.Open(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	emb := MustLexical(t, db)
	keys, err := ParseAPIKeys(tenantKeys)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		keys  APIKeys
		share RegistryShare
		want  string // "" when accepted
	}{
		{"known tenants", keys, RegistryShare{Owner: "default", Name: "team", To: []string{"alice", "bob"}}, ""},
		{"owned by a tenant", keys, RegistryShare{Owner: "carol", Name: "team", To: []string{"alice"}}, ""},
		{"misspelt receiver", keys, RegistryShare{Owner: "default", Name: "team", To: []string{"alice", "alcie"}}, "tenant alcie has no API key"},
		{"unknown owner", keys, RegistryShare{Owner: "dave", Name: "team", To: []string{"alice"}}, "tenant dave has no API key"},
		{"no keys", APIKeys{}, RegistryShare{Owner: "default", Name: "team", To: []string{"alice"}}, "tenant alice has no API key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := New(Config{Memory: plainMemory(db), Embedder: emb, APIKeys: tc.keys, Logger: discardLogger(),
				Tenants: tenant.MemoryOpener{Stores: tenant.NewStores(base, discardLogger())}, SharedRegistries: []RegistryShare{tc.share}})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				srv.Close()
				return
			}
			if err == nil {
				srv.Close()
			}
			if engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(engine.ErrorMessage(err), tc.want) {
				t.Fatalf("New with share %+v: %v; want invalid saying %q", tc.share, err, tc.want)
			}
		})
	}
}
