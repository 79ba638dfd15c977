package mcp

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models/lexical"
)

// TestNewConfig: New refuses a config without its memory or embedder, a
// tenant that is not a tenant name, and a named tenant without tenant
// stores.
func TestNewConfig(t *testing.T) {
	emb := lexical.New(0)
	// New builds the default tenant's memory and calls none of its use
	// cases: a builder of none is enough to check the configuration.
	none := func(tenant.Embedders) *memory.Service { return nil }
	stores := tenant.MemoryOpener{Stores: tenant.NewStores(filepath.Join(t.TempDir(), "x.db"), nil, time.Now)}
	for _, c := range []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"no memory", Config{Embedder: emb}, "Config.Memory is required"},
		{"no embedder", Config{Memory: none}, "Config.Embedder is required"},
		{"bad MCP tenant", Config{Memory: none, Embedder: emb, Tenant: "Bob", Tenants: stores}, "lower-case"},
		{"MCP tenant without stores", Config{Memory: none, Embedder: emb, Tenant: "bob"}, "needs Config.Tenants"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(c.cfg)
			if engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("New: %v, want EINVALID with %q", err, c.wantErr)
			}
		})
	}
	for _, name := range []string{"", tenant.Default, "bob"} {
		s, err := New(Config{Memory: none, Embedder: emb, Tenant: name, Tenants: stores})
		if err != nil {
			t.Errorf("New with tenant %q: %v", name, err)
			continue
		}
		s.Close()
	}
}
