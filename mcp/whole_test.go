package mcp

import (
	"testing"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/internal/setup/setuptest"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

// The whole, for tests of the tools with LexSona's memory over a real
// store (see newFakeServer for the tools alone).

// testEnv is an MCP server over a temp-dir store with the lexical embedder
// and the default registry synced.
type testEnv struct {
	t   testing.TB
	srv *Server
	db  *store.DB
	emb models.Embedder
}

// MustOpenStore opens a store in a temp dir and closes it at the end of the test.
func MustOpenStore(tb testing.TB) *store.DB { return storetest.OpenSQLite(tb) }

// MustLexical opens the lexical embedder over db as `lexsona mcp` does:
// the registries in force synced and embedded through the composition root
// (setup.Assemble; the default pack into an empty store, the embedder
// fitted on them), with the sync's events a day before testNow.
func MustLexical(tb testing.TB, db *store.DB) models.Embedder {
	return setuptest.Lexical(tb, db, testNow.Add(-24*time.Hour))
}

// memoryOver is the memory over db with the product's options, as `lexsona
// mcp` builds it.
func memoryOver(db *store.DB) tenant.MemoryFunc { return tenant.MemoryOver(db, memory.Options{}) }

// testOptions are the test memories' options: fixed bands, no calibration
// file from the machine running the tests, the clock at testNow.
func testOptions(tb testing.TB) memory.Options {
	return memory.Options{
		Classifier: classifier.Options{Thresholds: &classifier.Thresholds{Auto: 0.6, Confirm: 0.35}, CalibrationDir: tb.TempDir()},
		Now:        func() time.Time { return testNow },
	}
}

// newTestEnv builds a server over the test options; edit adjusts its
// config before New.
func newTestEnv(tb testing.TB, edit func(*Config)) *testEnv {
	tb.Helper()
	db := MustOpenStore(tb)
	emb := MustLexical(tb, db)
	cfg := Config{Memory: tenant.MemoryOver(db, testOptions(tb)), Embedder: emb, Logger: discardLogger()}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	tb.Cleanup(func() { srv.Close() })
	return &testEnv{t: tb, srv: srv, db: db, emb: emb}
}
