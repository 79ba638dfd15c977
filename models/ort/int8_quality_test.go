package ort

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modeltest"
)

// TestInt8MatchesFP32 holds the int8 graph of the real all-MiniLM-L6-v2 to
// the quality targets: the cosine of its vector and the float32 graph's
// vector of the same text has median >= 0.98 and minimum >= 0.95, over the
// 83 reference texts and over the texts of the eval dataset. It logs the
// distribution, checks that a text's int8 vector does not depend on the
// texts batched with it, and logs the distribution of langchain4j's
// quantized export of the same model (an independent int8 export) for
// comparison when `make real-model` unpacked it.
func TestInt8MatchesFP32(t *testing.T) {
	dir := MustInt8Model(t, modeltest.MustFullModel(t))
	mustLib(t)
	sets := []struct {
		name  string
		texts []string
	}{{"reference texts", modeltest.ReferenceTexts(t)}, {"eval dataset", mustDatasetTexts(t)}}
	fp32 := mustOpen(t, models.Options{ModelDir: dir, CacheSize: -1})
	q8 := mustOpen(t, models.Options{ModelDir: dir, Variant: models.VariantInt8, CacheSize: -1, MaxBatch: models.DefaultMaxBatch})
	var l4j models.Embedder
	l4jDir := filepath.Join(testenv.RepoRoot(t), ".cache", "models", "langchain4j-all-minilm-l6-v2-q")
	if _, err := os.Stat(filepath.Join(l4jDir, "model.onnx")); err == nil {
		l4j = mustOpen(t, models.Options{ModelDir: l4jDir, CacheSize: -1})
	}
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			want := modeltest.MustEmbed(t, fp32, set.texts)
			cos := cosines(want, modeltest.MustEmbed(t, q8, set.texts))
			t.Logf("int8 (%s) against float32, %d texts: %s", q8.Identity().ID(), len(cos), distribution(cos))
			if m := quantile(cos, 0.5); m < 0.98 {
				t.Errorf("median cosine %.4f, want >= 0.98", m)
			}
			if m := quantile(cos, 0); m < 0.95 {
				worst := slices.Index(cosines(want, modeltest.MustEmbed(t, q8, set.texts)), m)
				t.Errorf("minimum cosine %.4f (%q), want >= 0.95", m, set.texts[worst])
			}
			// A text's int8 vector is the same alone and in batches of up
			// to 32 with other texts (the graph scales activations token by
			// token, and the ort backend batches it).
			var alone [][]float32
			for _, text := range set.texts {
				alone = append(alone, modeltest.MustEmbed(t, q8, []string{text})...)
			}
			d := modeltest.MaxAbsDiff(alone, modeltest.MustEmbed(t, q8, set.texts))
			t.Logf("int8 vectors alone and in batches of %d: largest component difference %g", q8.p.CallSize(), d)
			if d > 1e-6 {
				t.Errorf("int8 vectors embedded alone and together differ by %g", d)
			}
			if l4j != nil {
				var got [][]float32
				for _, text := range set.texts { // one per call: it scales activations per call
					got = append(got, modeltest.MustEmbed(t, l4j, []string{text})...)
				}
				t.Logf("langchain4j's quantized export against float32: %s", distribution(cosines(want, got)))
			}
		})
	}
}

// mustDatasetTexts are the texts of eval/testdata/corrections.jsonl.
func mustDatasetTexts(tb testing.TB) []string {
	tb.Helper()
	p := filepath.Join(testenv.RepoRoot(tb), "eval", "testdata", "corrections.jsonl")
	f, err := os.Open(p)
	if err != nil {
		testenv.RealModelMissing(tb, "the eval dataset %s is unreadable: %v", p, err)
	}
	defer f.Close()
	var texts []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var item struct {
			Text string `json:"text"`
		}
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := json.Unmarshal(sc.Bytes(), &item); err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		texts = append(texts, item.Text)
	}
	if err := sc.Err(); err != nil || len(texts) == 0 {
		tb.Fatalf("%s: %d texts (%v)", p, len(texts), err)
	}
	return texts
}

// cosines are the dot products of unit vectors a[i] and b[i], in order.
func cosines(a, b [][]float32) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = cosine(a[i], b[i])
	}
	return out
}

// quantile is the q-quantile (0 the minimum, 0.5 the median) of v.
func quantile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1)+0.5)]
}

// distribution describes v: min, 1st, 5th, 25th percentiles, median, mean.
func distribution(v []float64) string {
	mean := 0.0
	for _, x := range v {
		mean += x / float64(len(v))
	}
	return fmt.Sprintf("min %.4f, p1 %.4f, p5 %.4f, p25 %.4f, median %.4f, mean %.4f",
		quantile(v, 0), quantile(v, 0.01), quantile(v, 0.05), quantile(v, 0.25), quantile(v, 0.5), mean)
}
