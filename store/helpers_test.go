package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// t0 is the fixed clock of the tests.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// MustOpen opens a new database in a temporary directory, closed at the end
// of the test.
func MustOpen(tb testing.TB) *DB {
	tb.Helper()
	db, err := Open(context.Background(), filepath.Join(tb.TempDir(), "lexsona.db"))
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return db
}

// MustCreate stores a rule at the prior with the given id, category and
// scope, first seen at t0.
func MustCreate(tb testing.TB, db *DB, id, category string, scope engine.Scope) engine.Rule {
	tb.Helper()
	r := engine.NewRule(id, category, engine.SeverityShould, "Text of "+id, scope, engine.DefaultConfig(), t0)
	out, err := db.CreateRule(context.Background(), r)
	if err != nil {
		tb.Fatalf("CreateRule(%s): %v", id, err)
	}
	return out
}

// MustRecord records one correction and fails the test on error.
func MustRecord(tb testing.TB, db *DB, c engine.Correction) RecordResult {
	tb.Helper()
	if c.UserText == "" {
		c.UserText = "correction"
	}
	if c.Polarity == 0 {
		c.Polarity = engine.Reinforce
	}
	if c.At.IsZero() {
		c.At = t0
	}
	res, _, err := db.Record(context.Background(), c)
	if err != nil {
		tb.Fatalf("Record(%s): %v", c.RuleID, err)
	}
	return res
}

// counts returns the number of rows of each table the tests watch.
type counts struct{ Rules, Events, Texts, Embeddings, Keys, Pending, Config int }

func mustCount(tb testing.TB, db *DB) counts {
	tb.Helper()
	var c counts
	for _, x := range []struct {
		table string
		n     *int
	}{
		{"persona_rules", &c.Rules}, {"persona_events", &c.Events}, {"rule_texts", &c.Texts},
		{"persona_embeddings", &c.Embeddings}, {"idempotency_keys", &c.Keys},
		{"pending_confirmations", &c.Pending}, {"persona_config", &c.Config},
	} {
		if err := db.read.QueryRow("SELECT count(*) FROM " + x.table).Scan(x.n); err != nil {
			tb.Fatal(err)
		}
	}
	return c
}

// wantCode fails the test unless err carries the engine error code want.
func wantCode(tb testing.TB, err error, want string) {
	tb.Helper()
	if got := engine.ErrorCode(err); got != want {
		tb.Fatalf("error code %q (%v), want %q", got, err, want)
	}
}

func ptr[T any](v T) *T { return &v }
