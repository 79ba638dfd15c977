package classifier

import (
	"context"
	"database/sql"
	"math"
	"path/filepath"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

// MustOpenStore opens a fresh store in a temp dir, closed at cleanup.
func MustOpenStore(tb testing.TB) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "db"))
	if err != nil {
		tb.Fatalf("store.Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// MustLexical returns the lexical embedder fitted on reg's texts (the
// default pack when reg is nil), as the service fits it before a sync.
func MustLexical(tb testing.TB, reg *registry.Registry) *models.Lexical {
	tb.Helper()
	if reg == nil {
		reg = registry.Default()
	}
	l := models.NewLexical(0)
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

// MustDefaultClassifier returns a classifier over a fresh store holding the
// default pack embedded with the lexical embedder.
func MustDefaultClassifier(tb testing.TB, opts Options) (*Classifier, *store.DB) {
	tb.Helper()
	db := MustOpenStore(tb)
	emb := MustLexical(tb, nil)
	MustSync(tb, db, emb, nil)
	return New(db, emb, opts), db
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

// fakeEmbedder maps texts to hand-set vectors, for tests about band
// arithmetic and index plumbing rather than about embedding.
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

// unitAt returns a dims-long unit vector whose cosine with e0 is s and with
// e1 is sqrt(1-s²).
func unitAt(dims int, s float64) []float32 {
	v := make([]float32, dims)
	v[0], v[1] = float32(s), float32(math.Sqrt(1-s*s))
	return v
}

// basis returns the i-th basis vector.
func basis(dims, i int) []float32 {
	v := make([]float32, dims)
	v[i] = 1
	return v
}
