package server

import (
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models/lexical"
)

// TestSharesNeedTenantsWithKeys: a registry share whose owner or receiver
// has no API key (a misspelt name, or no keys at all) is refused at start,
// naming the tenant, instead of sharing with a memory nobody can reach.
// The configuration is checked before any memory is built (newServer,
// which New runs first).
func TestSharesNeedTenantsWithKeys(t *testing.T) {
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
			srv, err := newServer(Config{Embedder: lexical.New(0), APIKeys: tc.keys, Logger: discardLogger(),
				Tenants: noOpener{}, SharedRegistries: []RegistryShare{tc.share}})
			if err == nil && srv.batcher != nil {
				srv.batcher.Close()
			}
			if tc.want == "" {
				if err != nil {
					t.Fatalf("newServer: %v", err)
				}
				return
			}
			if engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(engine.ErrorMessage(err), tc.want) {
				t.Fatalf("newServer with share %+v: %v; want invalid saying %q", tc.share, err, tc.want)
			}
		})
	}
}
