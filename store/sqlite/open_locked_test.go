package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/store"
)

// Opening a database while another process holds its write lock (a running
// service in the middle of a commit, say) writes nothing: the orphaned
// embeddings are looked for with a read, so the open neither waits for the
// lock nor logs a failed clean-up.
func TestOpenUnderAnotherWritersLockWritesNothing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lexsona.db")
	d, err := Open(ctx, path, store.Options{Clock: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", fileURL(path))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK") //nolint:errcheck

	var logs bytes.Buffer
	d, err = Open(ctx, path, store.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil)), Clock: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if strings.Contains(logs.String(), "orphaned embeddings") {
		t.Errorf("open wrote under another writer's lock:\n%s", logs.String())
	}
}
