// Package storetest is the row contract every store driver keeps: Run
// executes each database-agnostic behaviour of package store (rules and
// their checks, event types, config, rule texts, the embeddings version)
// against a store a driver opens. memory/memorytest runs memory's decisions
// over the same drivers (evidence, exceptions, syncs, snapshots). It also
// holds the fixtures other packages' tests share to open a store and put
// rows in it.
package storetest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Opener opens a new, empty store for one test; the store is closed when
// the test ends. Path of the store it returns must open another handle on
// the same database with store.Open (as another process would).
type Opener func(t *testing.T) *store.DB

// Run runs the contract suite, each behaviour a subtest with a store of its
// own from open.
func Run(t *testing.T, open Opener) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"CreateAndGetRule", testCreateAndGetRule},
		{"CreateRuleBadInputWritesNothing", testCreateRuleBadInputWritesNothing},
		{"GetRuleErrors", testGetRuleErrors},
		{"EventTypes", testEventTypes},
		{"ConfigRows", testConfigRows},
		{"EmbeddingsVersionWithin", testEmbeddingsVersionWithin},
		{"PendingRoundTrip", testPendingRoundTrip},
		{"RuleAliases", testRuleAliases},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

// OpenSQLite opens a new SQLite store in a temporary directory, closed at
// the end of the test. The caller's test binary links the SQLite driver
// (a blank import of store/sqlite).
func OpenSQLite(tb testing.TB) *store.DB {
	tb.Helper()
	return mustOpen(tb, filepath.Join(tb.TempDir(), "lexsona.db"))
}

// SQLite is OpenSQLite as an Opener, for Run.
func SQLite(t *testing.T) *store.DB { return OpenSQLite(t) }

// mustOpen opens another handle on dsn, closed at the end of the test.
func mustOpen(tb testing.TB, dsn string) *store.DB {
	tb.Helper()
	db, err := store.OpenWith(context.Background(), dsn, store.Options{Clock: time.Now})
	if err != nil {
		tb.Fatalf("store.OpenWith(%s): %v", dsn, err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return db
}

// MustCreate stores a rule at the prior with the given id, category and
// scope, first seen at T0.
func MustCreate(tb testing.TB, db *store.DB, id, category string, scope engine.Scope) engine.Rule {
	tb.Helper()
	r := engine.NewRule(id, category, engine.SeverityShould, "Text of "+id, scope, engine.DefaultConfig(), T0)
	out, err := CreateRule(db, r)
	if err != nil {
		tb.Fatalf("CreateRule(%s): %v", id, err)
	}
	return out
}

// CreateRule stores r, completed as a new rule at the default prior and T0
// (engine.Rule.Complete), with its creation event, at T0, and returns it as
// stored. Errors: store.Tx.InsertRule's.
func CreateRule(db *store.DB, r engine.Rule) (engine.Rule, error) {
	r.Complete(engine.DefaultConfig(), T0)
	var out engine.Rule
	err := db.Write(context.Background(), T0, func(tx *store.Tx) error {
		if _, err := tx.InsertRule(r, engine.Event{Detail: "created (source: " + r.Source + ")"}); err != nil {
			return err
		}
		var err error
		out, err = tx.GetRule(r.RuleID)
		return err
	})
	return out, err
}

// T0 is the fixed clock of the suite.
var T0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// MustCreatePending stores an open pending confirmation of text and
// returns its id.
func MustCreatePending(tb testing.TB, db *store.DB, text string) int64 {
	tb.Helper()
	var id int64
	err := db.Write(context.Background(), T0, func(tx *store.Tx) error {
		var err error
		id, err = tx.CreatePending(engine.Pending{Text: text, Polarity: engine.Reinforce})
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return id
}
