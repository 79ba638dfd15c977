package server

import (
	"net/http"
	"testing"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/internal/setup/setuptest"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"

	_ "github.com/lexsona/lexsona/store/sqlite" // the driver of the stores the tests open
)

// The whole, for tests of the server with LexSona's memory over a real
// store (see newFakeEnv for the front end alone).

// testEnv is a server over a temp-dir store with the lexical embedder and
// the default registry synced.
type testEnv struct {
	t   testing.TB
	srv *Server
	db  *store.DB
	emb models.Embedder
	h   http.Handler
}

// MustOpenStore opens a store in a temp dir and closes it at the end of the test.
func MustOpenStore(tb testing.TB) *store.DB { return storetest.OpenSQLite(tb) }

// MustLexical opens the lexical embedder over db as `lexsona serve` does
// (MustAssemble).
func MustLexical(tb testing.TB, db *store.DB) models.Embedder {
	return setuptest.Lexical(tb, db, testNow.Add(-24*time.Hour))
}

// MustAssemble readies db with emb through the composition root, as `lexsona
// serve` does (setup.Assemble): the registries in force synced and embedded
// (the default pack into an empty store; a lexical embedder fitted on
// them), with the sync's events a day before testNow.
func MustAssemble(tb testing.TB, db *store.DB, emb models.Embedder) *setup.Core {
	return setuptest.Assemble(tb, db, emb, testNow.Add(-24*time.Hour))
}

// testBands are the test servers' classifier options: fixed bands, and no
// calibration file from the machine running the tests.
func testBands(tb testing.TB) classifier.Options {
	return classifier.Options{Thresholds: &classifier.Thresholds{Auto: 0.6, Confirm: 0.35}, CalibrationDir: tb.TempDir()}
}

// plainMemory is Config.Memory over db with the product's options (the
// calibration folder of the machine's data folder, the clock time.Now).
func plainMemory(db *store.DB) tenant.MemoryFunc {
	return memoryOver(db, classifier.Options{}, new(func() time.Time))
}

// memoryOver is a test server's Config.Memory: the use cases over db with
// the classifier options copts and the clock *now, read when New builds the
// memory (so that an edit of Config.Now before New sets the memory's clock
// too; nil: time.Now).
func memoryOver(db *store.DB, copts classifier.Options, now *func() time.Time) tenant.MemoryFunc {
	return func(e tenant.Embedders) *memory.Service {
		return memory.New(db, e.Classify, memory.Options{Classifier: copts, Now: *now, Bulk: e.Bulk})
	}
}

// newTestEnv builds a server; edit adjusts its config before New.
func newTestEnv(tb testing.TB, edit func(*Config)) *testEnv {
	tb.Helper()
	db := MustOpenStore(tb)
	emb := MustLexical(tb, db)
	cfg := Config{Embedder: emb, Logger: discardLogger(), Now: func() time.Time { return testNow }}
	cfg.Memory = memoryOver(db, testBands(tb), &cfg.Now)
	if edit != nil {
		edit(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	tb.Cleanup(func() { srv.Close() })
	return &testEnv{t: tb, srv: srv, db: db, emb: emb, h: srv.Handler()}
}

// startServer runs a server over LexSona's memory on a temp-dir store (see
// newTestEnv) on a free loopback port; stop cancels it and returns Run's
// error and how long the shutdown took.
func startServer(t *testing.T, edit func(*Config)) (s *Server, base string, db *store.DB, stop func() (time.Duration, error)) {
	t.Helper()
	db = MustOpenStore(t)
	emb := MustLexical(t, db)
	cfg := Config{Addr: "127.0.0.1:0", Embedder: emb, Logger: discardLogger()}
	cfg.Memory = memoryOver(db, testBands(t), &cfg.Now)
	if edit != nil {
		edit(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	base, stop = run(t, s)
	return s, base, db, stop
}

// ruleCount is the number of rules in the store, in any status.
func (e *testEnv) ruleCount() int {
	e.t.Helper()
	rules, err := e.db.ListRules(e.t.Context(), store.RuleFilter{})
	if err != nil {
		e.t.Fatal(err)
	}
	return len(rules)
}
