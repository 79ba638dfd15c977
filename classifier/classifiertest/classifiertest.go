// Package classifiertest holds the test helpers the classifier's and the
// use-case layer's tests share: the lexical embedder fitted as the service
// fits it, row counts straight from the database file, error-code checks
// and an embedder of hand-set vectors. It imports neither classifier nor
// memory, so the internal tests of both can use it.
package classifiertest

import (
	"context"
	"database/sql"
	"math"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
	_ "github.com/lexsona/lexsona/store/sqlite" // the driver whose file MustCount reads
)

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

// Counts are the rows a correction can write.
type Counts struct{ Rules, Events, Pending, Texts, Embeddings int }

// MustCount counts rules, events, pending confirmations, rule texts and
// embeddings straight from the database file.
func MustCount(tb testing.TB, db *store.DB) Counts {
	tb.Helper()
	raw, err := sql.Open("sqlite", "file:"+db.Path()+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		tb.Fatal(err)
	}
	defer raw.Close()
	var c Counts
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

// FakeEmbedder maps texts to hand-set vectors, for tests whose scores must
// be exact cosines rather than an embedder's. Embedding a text it has no
// vector for is an EINVALID error naming the text.
type FakeEmbedder struct {
	Dims    int
	Vectors map[string][]float32
}

// Embed returns the vectors set for texts.
func (f *FakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := f.Vectors[t]
		if !ok {
			return nil, engine.Errorf(engine.EINVALID, "fake embedder has no vector for %q", t)
		}
		out[i] = v
	}
	return out, nil
}

// Identity is the fake model's: fake@0123456789abcdef.
func (f *FakeEmbedder) Identity() models.Identity {
	return models.Identity{Name: "fake", SHA256: "0123456789abcdef0123", Dims: f.Dims}
}

// Backend is "fake".
func (f *FakeEmbedder) Backend() string { return "fake" }

// Close does nothing.
func (f *FakeEmbedder) Close() error { return nil }

// Basis returns the i-th dims-long basis vector.
func Basis(dims, i int) []float32 {
	v := make([]float32, dims)
	v[i] = 1
	return v
}

// UnitAt returns a dims-long unit vector whose cosine with e0 is s and with
// e1 is sqrt(1-s²).
func UnitAt(dims int, s float64) []float32 {
	v := make([]float32, dims)
	v[0], v[1] = float32(s), float32(math.Sqrt(1-s*s))
	return v
}
