// Package setuptest holds what the front ends' tests (server, mcp) share to
// stand a memory up as the binary does: the lexical embedder, and the
// registries in force readied through the composition root.
package setuptest

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/store"
)

// Assemble readies db with emb through the composition root, as `lexsona
// serve` and `lexsona mcp` do (setup.Assemble): the registries in force
// synced and embedded (the default pack into an empty store; a lexical
// embedder fitted on them), the sync's events at syncedAt.
func Assemble(tb testing.TB, db *store.DB, emb models.Embedder, syncedAt time.Time) *setup.Core {
	tb.Helper()
	cfg := setup.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time { return syncedAt }}
	core, err := setup.Assemble(context.Background(), setup.MemoryOf(db, cfg), emb, cfg)
	if err != nil {
		tb.Fatalf("setup.Assemble: %v", err)
	}
	return core
}

// Lexical opens the lexical embedder (closed at the end of the test) and
// readies db with it (Assemble).
func Lexical(tb testing.TB, db *store.DB, syncedAt time.Time) models.Embedder {
	tb.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	emb, err := setup.OpenEmbedder(context.Background(), setup.Config{Embedder: models.Options{Backend: "lexical"}, Logger: log})
	if err != nil {
		tb.Fatalf("setup.OpenEmbedder(lexical): %v", err)
	}
	tb.Cleanup(func() { emb.Close() })
	Assemble(tb, db, emb, syncedAt)
	return emb
}
