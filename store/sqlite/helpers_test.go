package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// t0 is the fixed clock of the tests.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// mustOpenWith opens a new database in a temporary directory with cfg and
// returns the store over it and the driver, closed at the end of the test.
func mustOpenWith(tb testing.TB, cfg config) (*store.DB, *Driver) {
	tb.Helper()
	return mustOpenPath(tb, filepath.Join(tb.TempDir(), "lexsona.db"), cfg)
}

func mustOpenPath(tb testing.TB, path string, cfg config) (*store.DB, *Driver) {
	tb.Helper()
	d, err := open(context.Background(), path, store.Options{}, cfg)
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	db := store.New(d)
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return db, d
}

// mustOpen is mustOpenWith the default configuration.
func mustOpen(tb testing.TB) (*store.DB, *Driver) {
	tb.Helper()
	return mustOpenWith(tb, defaultConfig)
}

// openPath opens the database at path with the default configuration; the
// caller closes it.
func openPath(ctx context.Context, path string) (*store.DB, *Driver, error) {
	d, err := Open(ctx, path, store.Options{})
	if err != nil {
		return nil, nil, err
	}
	return store.New(d), d, nil
}

func def(id, text string, examples ...string) engine.Definition {
	return engine.Definition{Rule: engine.Rule{RuleID: id, Category: "tool_preference", Severity: engine.SeverityShould, Text: text}, Examples: examples}
}

func mustSync(t *testing.T, db *store.DB, defs ...engine.Definition) store.SyncResult {
	t.Helper()
	res, err := db.SyncDefinitions(context.Background(), defs, t0)
	if err != nil {
		t.Fatalf("SyncDefinitions: %v", err)
	}
	return res
}

// mustStats counts the stored rows of each kind.
func mustStats(tb testing.TB, db *store.DB) store.Stats {
	tb.Helper()
	s, err := db.Stats(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// wantCode fails the test unless err carries the engine error code want.
func wantCode(tb testing.TB, err error, want string) {
	tb.Helper()
	if got := engine.ErrorCode(err); got != want {
		tb.Fatalf("error code %q (%v), want %q", got, err, want)
	}
}
