package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

// t0 is the fixed clock of the tests.
var t0 = storetest.T0

// mustOpenWith opens a new database in a temporary directory with cfg and
// returns the store over it and the driver, closed at the end of the test.
func mustOpenWith(tb testing.TB, cfg config) (*store.DB, *Driver) {
	tb.Helper()
	return mustOpenPath(tb, filepath.Join(tb.TempDir(), "lexsona.db"), cfg)
}

func mustOpenPath(tb testing.TB, path string, cfg config) (*store.DB, *Driver) {
	tb.Helper()
	d, err := open(context.Background(), path, store.Options{Clock: time.Now}, cfg)
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	db := store.New(d, store.Options{Clock: time.Now})
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
	d, err := Open(ctx, path, store.Options{Clock: time.Now})
	if err != nil {
		return nil, nil, err
	}
	return store.New(d, store.Options{Clock: time.Now}), d, nil
}
