package models

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
)

// repoRoot is the repository root (see testenv).
func repoRoot(tb testing.TB) string { return testenv.RepoRoot(tb) }

// MustSharedTokenizerDir is ../shared/models/all-MiniLM-L6-v2 (the real
// tokenizer and config, no weights), or skips the test naming the path.
func MustSharedTokenizerDir(tb testing.TB) string {
	tb.Helper()
	d := filepath.Join(filepath.Dir(repoRoot(tb)), "shared", "models", ModelName)
	if _, err := os.Stat(filepath.Join(d, "tokenizer.json")); err != nil {
		tb.Skipf("the reference tokenizer %s is absent (it lives in ../shared, outside the repo): skipping", filepath.Join(d, "tokenizer.json"))
	}
	return d
}

// MustORTLib returns the ONNX Runtime library the tests use, or skips naming
// the path and `make ort` — or fails, when LEXSONA_REQUIRE_ORT=1 (CI).
func MustORTLib(tb testing.TB) string {
	tb.Helper()
	lib, why := ortLibForTests(tb)
	if why != "" {
		tb.Skip(why)
	}
	return lib
}

// ortLibForTests finds and probes the library; when it is unusable it fails
// the test under LEXSONA_REQUIRE_ORT=1 and otherwise returns why.
func ortLibForTests(tb testing.TB) (lib, why string) {
	tb.Helper()
	lib, err := FindORTLib("")
	if err == nil {
		_, err = ProbeORTLib(lib)
	}
	if err == nil {
		return lib, ""
	}
	want := filepath.Join(repoRoot(tb), ".cache", "ort", ortLibName)
	if os.Getenv("LEXSONA_REQUIRE_ORT") == "1" {
		tb.Fatalf("LEXSONA_REQUIRE_ORT=1 but ONNX Runtime is unusable (%v); expected %s: run `make ort`", err, want)
	}
	return "", fmt.Sprintf("ONNX Runtime is unusable (%v); expected %s: run `make ort` (LEXSONA_REQUIRE_ORT=1 makes this a failure)", err, want)
}

// MustTinyModel returns a folder with the tiny generated model (hidden 32, 2
// layers) and the real tokenizer: .cache/models/tiny, else
// models/testdata/tiny-model.onnx.gz unpacked into a temp folder next to the
// tokenizer from ../shared. It skips naming `make fixtures` when neither exists.
func MustTinyModel(tb testing.TB) string {
	tb.Helper()
	root := repoRoot(tb)
	d := filepath.Join(root, ".cache", "models", "tiny")
	if _, err := os.Stat(filepath.Join(d, "model.onnx")); err == nil {
		return d
	}
	return mustTinyFromGz(tb)
}

// mustTinyFromGz unpacks models/testdata/tiny-model.onnx.gz into a temp
// folder next to the real tokenizer files from ../shared.
func mustTinyFromGz(tb testing.TB) string {
	tb.Helper()
	gz := filepath.Join(repoRoot(tb), "models", "testdata", "tiny-model.onnx.gz")
	if _, err := os.Stat(gz); err != nil {
		tb.Skipf("no tiny model: neither .cache/models/tiny nor %s exists; run `make fixtures`", gz)
	}
	shared := MustSharedTokenizerDir(tb)
	d := tb.TempDir()
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt", "config.json"} {
		mustCopy(tb, filepath.Join(shared, f), filepath.Join(d, f))
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

// MustFullModel returns the real all-MiniLM-L6-v2 folder the benchmarks
// run (testenv.RealModelDir: `make real-model` imports it), skipping, or
// failing under LEXSONA_REQUIRE_REAL_MODEL=1, when it is absent.
func MustFullModel(tb testing.TB) string {
	tb.Helper()
	return testenv.RealModelDir(tb)
}

func mustCopy(tb testing.TB, from, to string) {
	tb.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// MustOpen opens an embedder and closes it when the test ends.
func MustOpen(tb testing.TB, o Options) Embedder {
	tb.Helper()
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	e, err := Open(context.Background(), o)
	if err != nil {
		tb.Fatalf("Open(%+v): %v", o, err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// MustEmbed embeds texts and checks the Embedder contract: one finite unit
// vector of Identity().Dims per text.
func MustEmbed(tb testing.TB, e Embedder, texts []string) [][]float32 {
	tb.Helper()
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		tb.Fatalf("%s Embed: %v", e.Backend(), err)
	}
	if len(vecs) != len(texts) {
		tb.Fatalf("%s Embed: %d vectors for %d texts", e.Backend(), len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) != e.Identity().Dims || !CheckVector(v, 1e-5) {
			tb.Fatalf("%s Embed: vector %d (len %d, want %d) is not a finite unit vector", e.Backend(), i, len(v), e.Identity().Dims)
		}
	}
	return vecs
}

// MustReadJSON decodes a testdata file into v.
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

// referenceTexts are the varied texts of testdata/reference/texts.json.
func referenceTexts(tb testing.TB) []string {
	var texts []string
	MustReadJSON(tb, filepath.Join("testdata", "reference", "texts.json"), &texts)
	return texts
}

// maxAbsDiff is the largest per-component difference between two vector sets.
func maxAbsDiff[A, B float32 | float64](a [][]A, b [][]B) float64 {
	m := 0.0
	for i := range a {
		for k := range a[i] {
			m = math.Max(m, math.Abs(float64(a[i][k])-float64(b[i][k])))
		}
	}
	return m
}

// wantErr checks err's code and that its message contains every fragment.
func wantErr(tb testing.TB, err error, code string, fragments ...string) {
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
