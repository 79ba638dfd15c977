package classifier

import (
	"context"
	"database/sql"
	"math"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
	_ "github.com/lexsona/lexsona/store/sqlite" // the driver MustOpenStore opens
	"github.com/lexsona/lexsona/store/storetest"
)

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

// storeCorpus is the Corpus of a store, read the way the use-case layer
// reads it: the stored vectors, the scopes and texts of the rules that are
// not archived, and the store's embeddings version.
type storeCorpus struct{ db *store.DB }

func (c storeCorpus) Version(ctx context.Context, maxAge time.Duration) (int64, error) {
	return c.db.EmbeddingsVersionWithin(ctx, maxAge)
}

func (c storeCorpus) Vectors(ctx context.Context, model string) ([]Vector, error) {
	rows, err := c.db.LoadEmbeddings(ctx, model)
	if err != nil {
		return nil, err
	}
	out := make([]Vector, len(rows))
	for i, r := range rows {
		out[i] = Vector{RuleID: r.RuleID, Affirms: store.Affirms(r.Kind), Vector: r.Vector}
	}
	return out, nil
}

func (c storeCorpus) Rules(ctx context.Context) (map[string]engine.Scope, error) {
	rules, err := c.db.ListRules(ctx, store.RuleFilter{})
	if err != nil {
		return nil, err
	}
	out := make(map[string]engine.Scope, len(rules))
	for _, r := range rules {
		if r.Status != engine.StatusArchived {
			out[r.RuleID] = r.Scope
		}
	}
	return out, nil
}

func (c storeCorpus) Texts(ctx context.Context) ([]Text, error) {
	live, err := c.Rules(ctx)
	if err != nil {
		return nil, err
	}
	texts, err := c.db.LoadRuleTexts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Text, 0, len(texts))
	for _, t := range texts {
		if _, ok := live[t.RuleID]; ok {
			out = append(out, Text{RuleID: t.RuleID, Text: t.Text})
		}
	}
	return out, nil
}

func (c storeCorpus) RuleExists(ctx context.Context, id string) (bool, error) {
	_, err := c.db.GetRule(ctx, id)
	if engine.ErrorCode(err) == engine.ENOTFOUND {
		return false, nil
	}
	return err == nil, err
}

// newOnStore returns a classifier over db's corpus.
func newOnStore(db *store.DB, emb models.Embedder, opts Options) *Classifier {
	return New(storeCorpus{db}, emb, opts)
}

// MustDefaultClassifier returns a classifier over a fresh store holding the
// default pack embedded with the lexical embedder.
func MustDefaultClassifier(tb testing.TB, opts Options) (*Classifier, *store.DB) {
	tb.Helper()
	db := MustOpenStore(tb)
	emb := MustLexical(tb, nil)
	MustSync(tb, db, emb, nil)
	return newOnStore(db, emb, opts), db
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
