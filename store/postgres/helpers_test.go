package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

// t0 is the fixed clock of the tests.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// mustOpen opens a store in a new schema and returns it, its driver and its
// URL; it is closed at the end of the test.
func mustOpen(tb testing.TB) (*store.DB, *Driver, string) {
	tb.Helper()
	dsn := testenv.PGSchemaURL(tb)
	db, d := mustOpenURL(tb, dsn)
	return db, d, dsn
}

// mustOpenURL opens another instance on dsn, closed at the end of the test.
func mustOpenURL(tb testing.TB, dsn string) (*store.DB, *Driver) {
	tb.Helper()
	d, err := Open(context.Background(), dsn, store.Options{Clock: time.Now})
	if err != nil {
		tb.Fatalf("Open(%s): %v", dsn, err)
	}
	db := store.New(d, store.Options{Clock: time.Now})
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return db, d
}

// mustExec runs statements on d's pool.
func mustExec(tb testing.TB, d *Driver, sql string, args ...any) {
	tb.Helper()
	if _, err := d.pool.Exec(context.Background(), sql, args...); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
}

// mustCreate stores a rule at the prior with the given id, first seen at t0.
func mustCreate(tb testing.TB, db *store.DB, id string) engine.Rule {
	tb.Helper()
	r := engine.NewRule(id, "tool_preference", engine.SeverityShould, "Text of "+id, engine.Scope{}, engine.DefaultConfig(), t0)
	out, err := storetest.CreateRule(db, r)
	if err != nil {
		tb.Fatalf("CreateRule(%s): %v", id, err)
	}
	return out
}

// record applies one correction in its own write transaction.
func record(ctx context.Context, db *store.DB, c engine.Correction) (memory.RecordResult, error) {
	var res memory.RecordResult
	err := db.Write(ctx, t0, func(tx *store.Tx) error {
		var err error
		res, _, err = memory.ApplyCorrection(tx, c)
		return err
	})
	return res, err
}

// wantCode fails the test unless err carries the engine error code want.
func wantCode(tb testing.TB, err error, want string) {
	tb.Helper()
	if got := engine.ErrorCode(err); got != want {
		tb.Fatalf("error code %q (%v), want %q", got, err, want)
	}
}
