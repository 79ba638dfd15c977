// Package modeltest holds the test helpers the embedding packages share:
// the model folders tests run (the tiny generated model, the real
// all-MiniLM-L6-v2), the reference files in models/testdata, the ONNX
// Runtime library check, and the Embedder contract check. Helpers that
// cannot find what they need skip the test, naming the path and how to get
// it, or fail it where the LEXSONA_REQUIRE_* variables say so.
package modeltest

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
)

// Testdata is the path of a file in models/testdata.
func Testdata(tb testing.TB, elem ...string) string {
	tb.Helper()
	return filepath.Join(append([]string{testenv.RepoRoot(tb), "models", "testdata"}, elem...)...)
}

// MustSharedTokenizerDir is ../shared/models/all-MiniLM-L6-v2 (the real
// tokenizer and config, no weights), or skips the test naming the path.
func MustSharedTokenizerDir(tb testing.TB) string {
	tb.Helper()
	d := filepath.Join(filepath.Dir(testenv.RepoRoot(tb)), "shared", "models", models.ModelName)
	if _, err := os.Stat(filepath.Join(d, "tokenizer.json")); err != nil {
		tb.Skipf("the reference tokenizer %s is absent (it lives in ../shared, outside the repo): skipping", filepath.Join(d, "tokenizer.json"))
	}
	return d
}

// MustTokenizer loads the real all-MiniLM-L6-v2 tokenizer from ../shared.
func MustTokenizer(tb testing.TB) *models.Tokenizer {
	tb.Helper()
	tok, err := models.LoadTokenizer(MustSharedTokenizerDir(tb), models.MaxSeqLength)
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

// ORTLib is the ONNX Runtime lookup MustORTLib checks: the ort package's
// Usable (SearchLib, then ProbeLib), returning the library and why it is unusable.
type ORTLib func() (lib string, err error)

// ORTUsable says whether find's library is usable; when it is not, it fails
// the test under LEXSONA_REQUIRE_ORT=1 and otherwise returns why.
func ORTUsable(tb testing.TB, find ORTLib) (lib, why string) {
	tb.Helper()
	lib, err := find()
	if err == nil {
		return lib, ""
	}
	want := filepath.Join(testenv.RepoRoot(tb), ".cache", "ort", "libonnxruntime.so.1")
	if testenv.ORTRequired() {
		tb.Fatalf("LEXSONA_REQUIRE_ORT=1 but ONNX Runtime is unusable (%v); expected %s: run `make ort`", err, want)
	}
	return "", fmt.Sprintf("ONNX Runtime is unusable (%v); expected %s: run `make ort` (LEXSONA_REQUIRE_ORT=1 makes this a failure)", err, want)
}

// MustORTLib returns find's library, or skips naming the path and `make
// ort` — or fails, when LEXSONA_REQUIRE_ORT=1 (CI).
func MustORTLib(tb testing.TB, find ORTLib) string {
	tb.Helper()
	lib, why := ORTUsable(tb, find)
	if why != "" {
		tb.Skip(why)
	}
	return lib
}

// MustTinyModel returns a folder with the tiny generated model (hidden 32, 2
// layers) and the real tokenizer: .cache/models/tiny, else
// models/testdata/tiny-model.onnx.gz unpacked into a temp folder next to the
// tokenizer from ../shared. It skips naming `make fixtures` when neither exists.
func MustTinyModel(tb testing.TB) string {
	tb.Helper()
	d := filepath.Join(testenv.RepoRoot(tb), ".cache", "models", "tiny")
	if _, err := os.Stat(filepath.Join(d, "model.onnx")); err == nil {
		return d
	}
	return MustTinyFromGz(tb)
}

// MustTinyFromGz unpacks models/testdata/tiny-model.onnx.gz into a temp
// folder next to the real tokenizer files from ../shared.
func MustTinyFromGz(tb testing.TB) string {
	tb.Helper()
	gz := Testdata(tb, "tiny-model.onnx.gz")
	if _, err := os.Stat(gz); err != nil {
		tb.Skipf("no tiny model: neither .cache/models/tiny nor %s exists; run `make fixtures`", gz)
	}
	shared := MustSharedTokenizerDir(tb)
	d := tb.TempDir()
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt", "config.json"} {
		MustCopy(tb, filepath.Join(shared, f), filepath.Join(d, f))
	}
	in, err := os.Open(gz)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		tb.Fatalf("%s: %v", gz, err)
	}
	out, err := os.Create(filepath.Join(d, "model.onnx"))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		tb.Fatalf("%s: %v", gz, err)
	}
	if err := out.Close(); err != nil {
		tb.Fatal(err)
	}
	return d
}

// MustModelCopy copies the tiny model's folder into a temp folder the test
// may change.
func MustModelCopy(tb testing.TB) string {
	tb.Helper()
	return CopyModel(tb, MustTinyModel(tb))
}

// CopyModel copies a model folder's top-level model and tokenizer files into
// a temp folder.
func CopyModel(tb testing.TB, from string) string {
	tb.Helper()
	to := tb.TempDir()
	for _, f := range []string{"model.onnx", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt", "config.json"} {
		if _, err := os.Stat(filepath.Join(from, f)); err == nil {
			MustCopy(tb, filepath.Join(from, f), filepath.Join(to, f))
		}
	}
	return to
}

// MustFullModel returns the real all-MiniLM-L6-v2 folder the benchmarks
// run (testenv.RealModelDir: `make real-model` imports it), skipping, or
// failing under LEXSONA_REQUIRE_REAL_MODEL=1, when it is absent.
func MustFullModel(tb testing.TB) string {
	tb.Helper()
	return testenv.RealModelDir(tb)
}

// MustCopy copies a file, creating the target's folder.
func MustCopy(tb testing.TB, from, to string) {
	tb.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		tb.Fatal(err)
	}
	MustWrite(tb, to, b)
}

// MustWrite writes a file, creating its folder.
func MustWrite(tb testing.TB, path string, b []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// MustEmbed embeds texts and checks the Embedder contract: one finite unit
// vector of Identity().Dims per text.
func MustEmbed(tb testing.TB, e models.Embedder, texts []string) [][]float32 {
	tb.Helper()
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		tb.Fatalf("%s Embed: %v", e.Backend(), err)
	}
	if len(vecs) != len(texts) {
		tb.Fatalf("%s Embed: %d vectors for %d texts", e.Backend(), len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) != e.Identity().Dims || !unitVector(v, 1e-5) {
			tb.Fatalf("%s Embed: vector %d (len %d, want %d) is not a finite unit vector", e.Backend(), i, len(v), e.Identity().Dims)
		}
	}
	return vecs
}

// MustReadJSON decodes a reference file into v, skipping the test naming
// `make fixtures` when it is absent.
func MustReadJSON(tb testing.TB, path string, v any) {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Skipf("reference %s is absent: run `make fixtures` (%v)", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
}

// ReferenceTexts are the varied texts of models/testdata/reference/texts.json.
func ReferenceTexts(tb testing.TB) []string {
	tb.Helper()
	var texts []string
	MustReadJSON(tb, Testdata(tb, "reference", "texts.json"), &texts)
	return texts
}

// MaxAbsDiff is the largest per-component difference between two vector sets.
func MaxAbsDiff[A, B float32 | float64](a [][]A, b [][]B) float64 {
	m := 0.0
	for i := range a {
		for k := range a[i] {
			m = math.Max(m, math.Abs(float64(a[i][k])-float64(b[i][k])))
		}
	}
	return m
}

// WantErr checks err's code and that its message contains every fragment.
func WantErr(tb testing.TB, err error, code string, fragments ...string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("no error; want %s containing %q", code, fragments)
	}
	if got := engine.ErrorCode(err); got != code {
		tb.Errorf("code %q, want %q (%v)", got, code, err)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			tb.Errorf("error %q does not contain %q", err, f)
		}
	}
}

// TokenReference is models/testdata/reference/tokens.json: the token ids
// Transformers.js produced for each text from the real tokenizer.json.
type TokenReference struct {
	MaxSeqLength    int    `json:"max_seq_length"`
	TokenizerSHA256 string `json:"tokenizer_sha256"`
	Items           []struct {
		Text     string  `json:"text"`
		InputIDs []int64 `json:"input_ids"`
	} `json:"items"`
}

// MustTokenReference reads models/testdata/reference/tokens.json.
func MustTokenReference(tb testing.TB) TokenReference {
	tb.Helper()
	var ref TokenReference
	MustReadJSON(tb, Testdata(tb, "reference", "tokens.json"), &ref)
	return ref
}

// unitVector reports whether v is finite and unit-length within tol, as
// the Embedder contract wants every vector.
func unitVector(v []float32, tol float64) bool {
	var ss float64
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
		ss += f * f
	}
	return len(v) > 0 && math.Abs(math.Sqrt(ss)-1) <= tol
}
