package lexical

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modeltest"
)

// denseLexicalReference is the lexical embedding as it was computed before
// the sparse path: a dense float64 accumulator over every bucket and
// Normalize64. Embed and EmbedSparse must reproduce it bit for bit, or
// stored vectors would silently change under the same Identity.
func denseLexicalReference(l *Embedder, text string) ([]float32, error) {
	var fams [nFamilies][]feat
	forEachFeature(text, func(fam int, key uint64, w float64) { fams[fam] = append(fams[fam], feat{key, w}) })
	acc := make([]float64, l.dims)
	var weights []float64
	for fam, fs := range fams {
		if len(fs) == 0 {
			continue
		}
		slices.SortFunc(fs, func(a, b feat) int { return cmp.Compare(a.key, b.key) })
		uniq := fs[:0]
		weights = weights[:0]
		var ss float64
		for i := 0; i < len(fs); {
			j := i
			for j < len(fs) && fs[j].key == fs[i].key {
				j++
			}
			w := fs[i].w * (1 + math.Log(float64(j-i))) * l.idf(fs[i].key)
			uniq = append(uniq, fs[i])
			weights = append(weights, w)
			ss += w * w
			i = j
		}
		scale := math.Sqrt(famShare[fam] / ss)
		for i, f := range uniq {
			b := int(f.key % uint64(l.dims))
			if f.key>>63 == 1 {
				acc[b] -= weights[i] * scale
			} else {
				acc[b] += weights[i] * scale
			}
		}
	}
	var ss float64
	for _, x := range acc {
		ss += x * x
	}
	if ss == 0 {
		return nil, engine.Errorf(engine.EINVALID, "text 0 is empty or blank: nothing to embed")
	}
	return models.Normalize64(acc, 0)
}

// sparseTestTexts are the reference texts plus edge cases: repeats, stop
// words only, scripts without spaces, emoji, a long text.
func sparseTestTexts(tb testing.TB) []string {
	return append(modeltest.ReferenceTexts(tb),
		"the the the of of", "a", "Café naïve ÉCOLE", "日本語のテキストです", "👍", "?!", "don't DON'T dont",
		"ｆｕｌｌ ｗｉｄｔｈ", "errors.Is(err, io.EOF)", strings.Repeat("use pnpm not npm ", 300),
		"", "   ", "\u200b")
}

// TestLexicalSparseMatchesDense: for several bucket counts, fitted and not,
// Embed equals the dense reference bit for bit, EmbedSparse is the same
// vector as strictly increasing non-zero components, and both fail alike.
func TestLexicalSparseMatchesDense(t *testing.T) {
	ctx := context.Background()
	texts := sparseTestTexts(t)
	tests := []struct {
		name string
		dims int
		fit  []string
	}{
		{"default", 0, nil},
		{"default fitted", 0, texts[:len(texts)/2]},
		{"512 fitted", 512, texts[len(texts)/3:]},
		{"1000 (not a multiple of 64)", 1000, texts},
		{"64", 64, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New(tt.dims)
			if tt.fit != nil {
				l.Fit(tt.fit)
			}
			for _, text := range texts {
				want, wantErr := denseLexicalReference(l, text)
				got, err := l.Embed(ctx, []string{text})
				sp, spErr := l.EmbedSparse(ctx, []string{text})
				if wantErr != nil {
					if engine.ErrorCode(err) != engine.ErrorCode(wantErr) || engine.ErrorCode(spErr) != engine.ErrorCode(wantErr) {
						t.Errorf("%.40q: errors %v / %v, want %v", text, err, spErr, wantErr)
					}
					continue
				}
				if err != nil || spErr != nil {
					t.Fatalf("%.40q: %v / %v", text, err, spErr)
				}
				if !sameBits(got[0], want) {
					t.Errorf("%.40q: Embed differs from the dense reference", text)
				}
				v := sp[0]
				if v.Dims != l.Identity().Dims || !sameBits(v.Dense(), want) {
					t.Errorf("%.40q: EmbedSparse differs from the dense reference", text)
				}
				if nz := countNonZero32(want); len(v.Indices) != nz || len(v.Values) != nz {
					t.Errorf("%.40q: %d/%d sparse components, want the %d non-zero ones", text, len(v.Indices), len(v.Values), nz)
				}
				for i := 1; i < len(v.Indices); i++ {
					if v.Indices[i] <= v.Indices[i-1] {
						t.Fatalf("%.40q: indices not strictly increasing at %d", text, i)
					}
				}
			}
		})
	}
}

// TestLexicalSparseBatch: a batch gives each text's vector, and a blank text
// is EINVALID naming its index, as with Embed.
func TestLexicalSparseBatch(t *testing.T) {
	l := New(0)
	texts := []string{"use pnpm", "never commit to main", "日本語"}
	dense := modeltest.MustEmbed(t, l, texts)
	sp, err := l.EmbedSparse(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		if !sameBits(sp[i].Dense(), dense[i]) {
			t.Errorf("text %d: sparse and dense differ", i)
		}
	}
	_, err = l.EmbedSparse(context.Background(), []string{"fine", "  "})
	modeltest.WantErr(t, err, engine.EINVALID, "text 1")
}

func sameBits(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
}

func countNonZero32(v []float32) int {
	n := 0
	for _, x := range v {
		if x != 0 {
			n++
		}
	}
	return n
}

func TestSparseOfUnwraps(t *testing.T) {
	l := New(0)
	for _, e := range []models.Embedder{l, models.NewCached(l, 0), models.NewCached(models.NewCached(l, 0), 0)} {
		if s, ok := models.SparseOf(e); !ok || s != models.SparseEmbedder(l) {
			t.Errorf("SparseOf(%T) = %v, %v; want the lexical embedder", e, s, ok)
		}
	}
}
