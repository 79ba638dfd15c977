package tenant

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/store"
)

// testTime is when the tests assess rules.
var testTime = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// memEnv is a default tenant's memory over a SQLite store in a temp dir
// (the default pack synced, the lexical embedder fitted on it), and the
// memories of its tenants beside it.
type memEnv struct {
	base string
	def  *memory.Service
	mems *Memories
}

// newMemEnv builds a memEnv; edit adjusts the memories' config.
func newMemEnv(t *testing.T, edit func(*MemoriesConfig)) *memEnv {
	t.Helper()
	ctx := context.Background()
	base := filepath.Join(t.TempDir(), "lexsona.db")
	db, err := store.OpenWith(ctx, base, store.Options{Clock: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	emb := lexical.New(0)
	def := memory.New(db, emb, memory.Options{})
	if _, _, err := def.SyncInForce(ctx, memory.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := MemoriesConfig{
		Default: def, Tenants: MemoryOpener{Stores: NewStores(base, log, time.Now)},
		Model: emb, Shared: Embedders{Classify: emb, Bulk: emb},
		TenantEmbedder: func(context.Context) (models.Embedder, error) { return lexical.New(0), nil },
		Logger:         log,
	}
	if edit != nil {
		edit(&cfg)
	}
	mems := NewMemories(cfg)
	t.Cleanup(func() { mems.Close() })
	return &memEnv{base: base, def: def, mems: mems}
}

// TestMemoriesGet: the default tenant's memory is the one given; a named
// tenant's is opened once, with the default pack synced into it, and kept;
// a bad name, a tenant without stores configured, and any tenant after
// Close are refused.
func TestMemoriesGet(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t, nil)
	for _, name := range []string{"", Default} {
		if m, err := e.mems.Get(ctx, name); err != nil || m != e.def {
			t.Errorf("Get(%q) = %p, %v; want the default memory %p", name, m, err, e.def)
		}
	}
	alice, err := e.mems.Get(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := e.mems.Get(ctx, "alice"); again != alice {
		t.Errorf("a second Get opened alice's memory again")
	}
	if alice == e.def {
		t.Fatalf("alice's memory is the default one")
	}
	if _, err := alice.GetRule(ctx, "tool.no-sed-for-file-editing", testTime); err != nil {
		t.Errorf("alice's memory lacks the default pack: %v", err)
	}
	if got := len(e.mems.Opened()); got != 2 {
		t.Errorf("%d memories open, want the default and alice", got)
	}
	for _, c := range []struct {
		name, tenant string
		edit         func(*MemoriesConfig)
		code         string
	}{
		{"bad name", "Bob", nil, engine.EUNAVAILABLE},
		{"no stores", "bob", func(c *MemoriesConfig) { c.Tenants = nil }, engine.EUNAVAILABLE},
		{"no tenant embedder", "bob", func(c *MemoriesConfig) { c.TenantEmbedder = nil }, engine.EUNAVAILABLE},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := newMemEnv(t, c.edit).mems.Get(ctx, c.tenant); engine.ErrorCode(err) != c.code {
				t.Errorf("Get(%q): %v, want %s", c.tenant, err, c.code)
			}
		})
	}
	if err := e.mems.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.mems.Get(ctx, "alice"); engine.ErrorCode(err) != engine.EUNAVAILABLE {
		t.Errorf("Get after Close: %v, want unavailable", err)
	}
	if m, err := e.mems.Get(ctx, Default); err != nil || m != e.def {
		t.Errorf("the default memory after Close: %v", err)
	}
}
