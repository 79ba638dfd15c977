package classifier

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/registry"
)

// sparseQuery is q as a sparse query (its non-zero components).
func sparseQuery(q []float32) query {
	v := models.SparseVector{Dims: len(q)}
	for j, x := range q {
		if x != 0 {
			v.Indices, v.Values = append(v.Indices, int32(j)), append(v.Values, x)
		}
	}
	return query{sparse: v}
}

// denseOnly hides an embedder's EmbedSparse, so the classifier takes the
// dense path.
type denseOnly struct{ models.Embedder }

// scoringTexts are many corrections: the labelled dataset's, the default
// pack's own texts, the benchmark's and a few edge cases.
func scoringTexts(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open(filepath.Join("..", "eval", "testdata", "corrections.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var texts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var it struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			tb.Fatal(err)
		}
		texts = append(texts, it.Text)
	}
	texts = append(texts, registry.Default().Texts()...)
	return append(append(texts, benchTexts...), "Café naïve ÉCOLE", "日本語のテキスト", "👍 no", "use  pnpm\tnot\nnpm ")
}

// TestSparseScoringMatchesDense: scoring the lexical embedder's sparse
// vector gives the scores of its dense vector, row by row (within 1e-6; the
// sums are in fact the same), per rule and in Search, on the sparse index of
// the default pack and on the same rows held dense.
func TestSparseScoringMatchesDense(t *testing.T) {
	ctx := context.Background()
	c, _ := MustDefaultClassifier(t, Options{})
	emb := c.emb.(*lexical.Embedder)
	if _, err := c.Classify(ctx, benchTexts[0], engine.Scope{}); err != nil {
		t.Fatal(err)
	}
	sparseIx := c.snap.Load().dense
	if !sparseIx.Sparse() {
		t.Fatal("the lexical index of the default pack is not sparse")
	}
	denseIx := NewIndex(sparseIx.dims, sparseIx.ids, rowsOf(sparseIx), nil)
	denseIx.mat, denseIx.sp = denseOf(denseIx), nil
	texts := scoringTexts(t)
	for _, ix := range []struct {
		name string
		ix   *Index
	}{{"sparse index", sparseIx}, {"dense index", denseIx}} {
		t.Run(ix.name, func(t *testing.T) {
			for _, text := range texts {
				dv, err := emb.Embed(ctx, []string{text})
				if err != nil {
					t.Fatal(err)
				}
				sq, err := embedQuery(ctx, emb, text)
				if err != nil {
					t.Fatal(err)
				}
				if sq.dense != nil {
					t.Fatal("embedQuery did not take the sparse path")
				}
				want, got := ix.ix.rowScores(dv[0]), ix.ix.rowScoresQuery(sq)
				for r := range *want {
					if d := math.Abs(float64((*want)[r] - (*got)[r])); d > 1e-6 {
						t.Fatalf("%q: row %d scores %v dense, %v sparse", text, r, (*want)[r], (*got)[r])
					}
				}
				ix.ix.pool.Put(want)
				ix.ix.pool.Put(got)
				if d := cmp.Diff(ix.ix.RuleScores(dv[0], nil), ix.ix.ruleScoresQuery(sq, nil)); d != "" {
					t.Errorf("%q: rule scores differ (-dense +sparse):\n%s", text, d)
				}
			}
		})
	}
}

// rowsOf is the rows of a sparse index.
func rowsOf(ix *Index) []Row {
	m := denseOf(ix)
	var rows []Row
	for i, id := range ix.ids {
		for r := ix.starts[i]; r < ix.starts[i+1]; r++ {
			rows = append(rows, Row{RuleID: id, Vector: m[int(r)*ix.dims : int(r+1)*ix.dims]})
		}
	}
	return rows
}

// denseOf is ix's sparse columns as a row-major matrix.
func denseOf(ix *Index) []float32 {
	m := make([]float32, ix.rows*ix.dims)
	for j := range ix.dims {
		for p := ix.sp.start[j]; p < ix.sp.start[j+1]; p++ {
			m[int(ix.sp.row[p])*ix.dims+j] = ix.sp.val[p]
		}
	}
	return m
}

// TestClassifySparseMatchesDense: classifications through the sparse path
// equal those of the same embedder seen as dense only, plain and hybrid.
func TestClassifySparseMatchesDense(t *testing.T) {
	ctx := context.Background()
	emb := MustLexical(t, nil)
	corpus := newMemCorpus(t, nil, emb)
	tests := []struct {
		name         string
		sparse, dens Options
		emb, hidden  models.Embedder
	}{
		{"plain", Options{}, Options{}, emb, denseOnly{emb}},
		{"hybrid", Options{Lexical: emb, LexicalWeight: 0.4}, Options{Lexical: denseOnly{emb}, LexicalWeight: 0.4}, emb, denseOnly{emb}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, dc := New(corpus, tt.emb, tt.sparse), New(corpus, tt.hidden, tt.dens)
			for _, text := range scoringTexts(t) {
				want, err := dc.Classify(ctx, text, engine.Scope{})
				if err != nil {
					t.Fatal(err)
				}
				got, err := sc.Classify(ctx, text, engine.Scope{})
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%q (-dense +sparse):\n%s", text, d)
				}
			}
		})
	}
}

// TestQueryVector: a sparse query's dense form is what it was made from, and
// an empty query has none.
func TestQueryVector(t *testing.T) {
	v := []float32{0, 0.6, 0, 0, -0.8}
	tests := []struct {
		name string
		q    query
		want []float32
	}{
		{"dense", query{dense: v}, v},
		{"sparse", sparseQuery(v), v},
		{"empty", query{}, nil},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, tt.q.vector()); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}

// TestWellFormed: what embedQuery accepts from a sparse embedder.
func TestWellFormed(t *testing.T) {
	tests := []struct {
		name string
		v    models.SparseVector
		want bool
	}{
		{"ok", models.SparseVector{Dims: 8, Indices: []int32{0, 3, 7}, Values: []float32{1, 2, 3}}, true},
		{"empty", models.SparseVector{Dims: 8}, false},
		{"values short", models.SparseVector{Dims: 8, Indices: []int32{0, 3}, Values: []float32{1}}, false},
		{"not increasing", models.SparseVector{Dims: 8, Indices: []int32{3, 3}, Values: []float32{1, 2}}, false},
		{"negative", models.SparseVector{Dims: 8, Indices: []int32{-1, 3}, Values: []float32{1, 2}}, false},
		{"past dims", models.SparseVector{Dims: 8, Indices: []int32{2, 8}, Values: []float32{1, 2}}, false},
	}
	for _, tt := range tests {
		if got := wellFormed(tt.v); got != tt.want {
			t.Errorf("%s: wellFormed = %v, want %v", tt.name, got, tt.want)
		}
	}
}
