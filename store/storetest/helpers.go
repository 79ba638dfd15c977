package storetest

import (
	"context"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// t0 is the fixed clock of the tests.
var t0 = T0

// MustCount returns the number of stored rows of each kind.
func MustCount(tb testing.TB, db *store.DB) store.Stats {
	tb.Helper()
	s, err := db.Stats(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// WantCode fails the test unless err carries the engine error code want.
func WantCode(tb testing.TB, err error, want string) {
	tb.Helper()
	if got := engine.ErrorCode(err); got != want {
		tb.Fatalf("error code %q (%v), want %q", got, err, want)
	}
}

// Def is a registry definition of a tool_preference rule that should be
// followed, with examples.
func Def(id, text string, examples ...string) engine.Definition {
	return engine.Definition{Rule: engine.Rule{RuleID: id, Category: "tool_preference", Severity: engine.SeverityShould, Text: text}, Examples: examples}
}

// MustVersion returns the store's embeddings version or fails the test.
func MustVersion(t *testing.T, db *store.DB) int64 {
	t.Helper()
	v, err := db.EmbeddingsVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Reopen opens another handle on db's database, as another process would.
func Reopen(t *testing.T, db *store.DB) *store.DB {
	t.Helper()
	return mustOpen(t, db.Path())
}

// MustTextKinds maps each text of rule id to its kind, or fails the test.
func MustTextKinds(tb testing.TB, db *store.DB, id string) map[string]string {
	tb.Helper()
	texts, err := db.RuleTexts(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	for _, x := range texts {
		out[x.Text] = x.Kind
	}
	return out
}
