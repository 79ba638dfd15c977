package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

// TestOpenForReading: a caller that only reads (store.Options.ReadOnly)
// reads a writable database another connection keeps writing, sees its
// commits, and every write of its own fails with the read-only fault;
// a database whose schema needs migrating is refused, named, and left as
// it was.
func TestOpenForReading(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lexsona.db")
	writer, _, err := openPath(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	storetest.MustCreate(t, writer, "tool.a", "tool_preference", engine.Scope{})

	d, err := Open(ctx, path, store.Options{ReadOnly: true, Clock: time.Now})
	if err != nil {
		t.Fatalf("Open for reading: %v", err)
	}
	reader := store.New(d, store.Options{Clock: time.Now})
	defer reader.Close()
	if !reader.ReadOnly() {
		t.Error("ReadOnly() = false for a database opened for reading")
	}
	if _, err := reader.GetRule(ctx, "tool.a"); err != nil {
		t.Fatalf("a read: %v", err)
	}
	storetest.MustCreate(t, writer, "tool.b", "tool_preference", engine.Scope{})
	if _, err := reader.GetRule(ctx, "tool.b"); err != nil {
		t.Errorf("a rule the writer committed after the open: %v", err)
	}
	_, err = storetest.CreateRule(reader, engine.NewRule("tool.c", "x", engine.SeverityShould, "C", engine.Scope{}, engine.DefaultConfig(), t0))
	if store.Fault(err) != store.FaultReadOnly || engine.ErrorCode(err) != engine.EUNAVAILABLE {
		t.Errorf("a write through the reader: %v, want the read-only fault", err)
	}

	old := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT, applied_at TEXT); INSERT INTO schema_migrations VALUES (1, 'init', '2026-01-01T00:00:00Z')"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	_, err = Open(ctx, old, store.Options{ReadOnly: true, Clock: time.Now})
	if engine.ErrorCode(err) != engine.EUNAVAILABLE || !strings.Contains(engine.ErrorMessage(err), "version 1") || !strings.Contains(engine.ErrorMessage(err), old) {
		t.Errorf("Open for reading of a database at schema 1: %v, want EUNAVAILABLE naming the file and its version", err)
	}
}
