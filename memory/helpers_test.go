package memory

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
	_ "github.com/lexsona/lexsona/store/sqlite" // the driver MustOpenStore opens
	"github.com/lexsona/lexsona/store/storetest"
)

// t0 is the time of the tests' corrections unless they say otherwise.
var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// MustOpenStore opens a fresh store in a temp dir, closed at cleanup.
func MustOpenStore(tb testing.TB) *store.DB { return storetest.OpenSQLite(tb) }

// MustLexical returns the lexical embedder fitted on reg's texts (the
// default pack when reg is nil), as the service fits it before a sync.
func MustLexical(tb testing.TB, reg *registry.Registry) *lexical.Embedder {
	tb.Helper()
	if reg == nil {
		reg = registry.Default()
	}
	l := lexical.New(0)
	l.Fit(reg.Texts())
	return l
}

// MustSync syncs reg (the default pack when nil) into db with emb.
func MustSync(tb testing.TB, db *store.DB, emb models.Embedder, reg *registry.Registry) registry.Summary {
	tb.Helper()
	sum, err := registry.Sync(context.Background(), db, emb, reg, registry.SyncOptions{})
	if err != nil {
		tb.Fatalf("registry.Sync: %v", err)
	}
	return sum
}

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

// counts are the rows a correction can write.
type counts struct{ Rules, Events, Pending, Texts, Embeddings int }

// MustCount counts rules, events, pending confirmations, rule texts and
// embeddings straight from the database file.
func MustCount(tb testing.TB, db *store.DB) counts {
	tb.Helper()
	raw, err := sql.Open("sqlite", "file:"+db.Path()+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		tb.Fatal(err)
	}
	defer raw.Close()
	var c counts
	for _, q := range []struct {
		table string
		dst   *int
	}{{"persona_rules", &c.Rules}, {"persona_events", &c.Events}, {"pending_confirmations", &c.Pending},
		{"rule_texts", &c.Texts}, {"persona_embeddings", &c.Embeddings}} {
		if err := raw.QueryRow("SELECT count(*) FROM " + q.table).Scan(q.dst); err != nil {
			tb.Fatalf("count %s: %v", q.table, err)
		}
	}
	return c
}

// MustCode fails unless err carries the engine code want ("" for no error).
func MustCode(tb testing.TB, err error, want string) {
	tb.Helper()
	if got := engine.ErrorCode(err); got != want {
		tb.Fatalf("error %v: code %q, want %q", err, got, want)
	}
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

// fakeEmbedder maps texts to hand-set vectors, for tests whose scores must
// be exact cosines rather than an embedder's.
type fakeEmbedder struct {
	dims    int
	vectors map[string][]float32
}

func (f *fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := f.vectors[t]
		if !ok {
			return nil, engine.Errorf(engine.EINVALID, "fake embedder has no vector for %q", t)
		}
		out[i] = v
	}
	return out, nil
}
func (f *fakeEmbedder) Identity() models.Identity {
	return models.Identity{Name: "fake", SHA256: "0123456789abcdef0123", Dims: f.dims}
}
func (f *fakeEmbedder) Backend() string { return "fake" }
func (f *fakeEmbedder) Close() error    { return nil }

// basis returns the i-th basis vector.
func basis(dims, i int) []float32 {
	v := make([]float32, dims)
	v[i] = 1
	return v
}
