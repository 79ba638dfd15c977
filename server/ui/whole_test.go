package ui_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/server"
	"github.com/lexsona/lexsona/store/storetest"

	_ "github.com/lexsona/lexsona/store/sqlite" // the driver of the stores the tests open
)

// The whole, for tests of the review page in the server, over LexSona's
// memory and a real store (see newPage for the page alone).

// testOptions are the servers' memories' options: fixed bands, no
// calibration file from the machine running the tests, the clock at
// testNow.
func testOptions(t *testing.T) memory.Options {
	return memory.Options{
		Classifier: classifier.Options{Thresholds: &classifier.Thresholds{Auto: 0.6, Confirm: 0.35}, CalibrationDir: t.TempDir()},
		Now:        func() time.Time { return testNow },
	}
}

// newEnv starts a server (the API and the review page) over a temp-dir
// SQLite store with the lexical embedder and the default pack in force; keys may be empty (an open server). tls serves
// over HTTPS.
func newEnv(t *testing.T, keys server.APIKeys, tls bool) *env {
	t.Helper()
	ctx := context.Background()
	db := storetest.OpenSQLite(t)
	emb, err := auto.Open(ctx, models.Options{Backend: "lexical", Logger: discard()})
	if err != nil {
		t.Fatalf("lexical embedder: %v", err)
	}
	t.Cleanup(func() { emb.Close() })
	if _, _, err := memory.New(db, emb, memory.Options{}).SyncInForce(ctx, memory.SyncOptions{Now: testNow.Add(-24 * time.Hour)}); err != nil {
		t.Fatalf("registry: %v", err)
	}
	srv, err := server.New(server.Config{Memory: tenant.MemoryOver(db, testOptions(t)), Embedder: emb, APIKeys: keys, Logger: discard(),
		Now: func() time.Time { return testNow },
	})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	var ts *httptest.Server
	if tls {
		ts = httptest.NewTLSServer(srv.Handler())
	} else {
		ts = httptest.NewServer(srv.Handler())
	}
	t.Cleanup(ts.Close)
	return &env{t: t, url: ts.URL, ts: ts}
}
