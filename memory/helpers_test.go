package memory

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/classifier/classifiertest"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
	_ "github.com/lexsona/lexsona/store/sqlite" // the driver MustOpenStore opens
	"github.com/lexsona/lexsona/store/storetest"
)

// t0 is the time of the tests' corrections unless they say otherwise.
var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// Helpers shared with the classifier's tests.
var (
	MustLexical = classifiertest.MustLexical
	MustCount   = classifiertest.MustCount
	MustCode    = classifiertest.MustCode
)

// MustOpenStore opens a fresh SQLite store in a temp dir, closed at cleanup.
func MustOpenStore(tb testing.TB) *store.DB { return storetest.OpenSQLite(tb) }

// MustSync runs the precompute job of reg (the default pack when nil) into
// db with emb.
func MustSync(tb testing.TB, db *store.DB, emb models.Embedder, reg *registry.Registry) Summary {
	tb.Helper()
	sum, err := Precompute(context.Background(), db, emb, reg, SyncOptions{})
	if err != nil {
		tb.Fatalf("Precompute: %v", err)
	}
	return sum
}

// counts are the rows a correction can write (what MustCount returns, as a
// type of this package so tests may write its values positionally).
type counts classifiertest.Counts

// MustDefaultService returns a service over a fresh store holding the
// default pack embedded with the lexical embedder.
func MustDefaultService(tb testing.TB, opts Options) (*Service, *store.DB) {
	tb.Helper()
	db := MustOpenStore(tb)
	emb := MustLexical(tb, nil)
	MustSync(tb, db, emb, nil)
	return New(db, emb, opts), db
}

// bands are Options whose classifier uses the thresholds auto and confirm.
func bands(auto, confirm float64) Options {
	return Options{Classifier: classifier.Options{Thresholds: &classifier.Thresholds{Auto: auto, Confirm: confirm}}}
}

// MustRecord records c (at t0 when c.At is zero) and fails on an error or a
// replay.
func MustRecord(tb testing.TB, s *Service, c engine.Correction) RecordResponse {
	tb.Helper()
	if c.At.IsZero() {
		c.At = t0
	}
	resp, replayed, err := s.Record(tb.Context(), c)
	if err != nil {
		tb.Fatalf("Record(%q): %v", c.UserText, err)
	}
	if replayed {
		tb.Fatalf("Record(%q) replayed", c.UserText)
	}
	return resp
}

// mustRule returns rule id from db.
func mustRule(tb testing.TB, db *store.DB, id string) engine.Rule {
	tb.Helper()
	r, err := db.GetRule(tb.Context(), id)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// lastEvent returns the newest event of a rule.
func lastEvent(tb testing.TB, db *store.DB, ruleID string) engine.Event {
	tb.Helper()
	evs, err := db.History(tb.Context(), ruleID, 0, store.MaxHistoryLimit)
	if err != nil || len(evs) == 0 {
		tb.Fatalf("History(%s): %v, %d events", ruleID, err, len(evs))
	}
	return evs[len(evs)-1]
}

// jsonKeys returns the sorted top-level keys of v as JSON.
func jsonKeys(tb testing.TB, v any) []string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
