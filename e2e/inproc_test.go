package e2e

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/server"
	"github.com/lexsona/lexsona/store"
)

// InProc is a server.Server built in the test process over a temp-dir
// SQLite file and serving real HTTP on 127.0.0.1 (server.New, Start, Run):
// for tests that need to reach under the server (its store, its log).
type InProc struct {
	Srv    *server.Server
	DB     *store.DB
	Emb    models.Embedder // the server's embedder
	Path   string          // the database file
	Base   string          // http://127.0.0.1:PORT
	log    *testenv.SyncBuffer
	cancel context.CancelFunc
	done   chan struct{} // closed when Run has returned
	runErr error
}

// MustStartInProc opens a store, the lexical embedder and the default
// registry (as `lexsona serve` does), then serves it; edit adjusts the
// config. The server is shut down at the end of the test.
func MustStartInProc(tb testing.TB, edit func(*server.Config)) *InProc {
	tb.Helper()
	ctx := context.Background()
	path := filepath.Join(tb.TempDir(), "lexsona.db")
	db, err := store.OpenWith(ctx, path, store.Options{Clock: time.Now})
	if err != nil {
		tb.Fatalf("store.Open: %v", err)
	}
	emb, err := auto.Open(ctx, models.Options{Backend: "lexical", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		db.Close()
		tb.Fatalf("models.Open lexical: %v", err)
	}
	tb.Cleanup(func() { emb.Close() })
	if _, _, err = memory.New(db, emb, memory.Options{}).SyncInForce(ctx, memory.SyncOptions{}); err != nil {
		db.Close()
		tb.Fatalf("syncing the default registry: %v", err)
	}
	p := &InProc{DB: db, Emb: emb, Path: path, log: &testenv.SyncBuffer{}, done: make(chan struct{})}
	cfg := server.Config{Addr: "127.0.0.1:0", Memory: tenant.MemoryOver(db, memory.Options{}), Embedder: emb,
		Logger: slog.New(slog.NewTextHandler(p.log, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	if edit != nil {
		edit(&cfg)
	}
	if p.Srv, err = server.New(cfg); err != nil {
		db.Close()
		tb.Fatalf("server.New: %v", err)
	}
	if err := p.Srv.Start(); err != nil {
		db.Close()
		tb.Fatalf("Start: %v", err)
	}
	p.Base = "http://" + p.Srv.Addr()
	var runCtx context.Context
	runCtx, p.cancel = context.WithCancel(ctx)
	go func() { p.runErr = p.Srv.Run(runCtx); close(p.done) }()
	tb.Cleanup(func() { p.Stop(tb) })
	return p
}

// Stop shuts the server down (closing its store) and waits for Run to
// return. Calling it again does nothing.
func (p *InProc) Stop(tb testing.TB) {
	p.cancel()
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		tb.Errorf("the in-process server did not stop within 15 s")
	}
}

// Log is everything the server logged so far.
func (p *InProc) Log() string { return p.log.String() }
