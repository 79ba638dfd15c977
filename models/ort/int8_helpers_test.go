package ort

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modelimport"
)

// MustInt8Model returns dir when it holds the int8 graph `lexsona model
// import` writes (onnx/model_int8.onnx); otherwise it skips, or fails under
// LEXSONA_REQUIRE_REAL_MODEL=1, naming the path and `make real-model` (a
// folder imported before the int8 variant existed is imported again).
func MustInt8Model(tb testing.TB, dir string) string {
	tb.Helper()
	p := filepath.Join(dir, "onnx", modelimport.VariantFile(models.VariantInt8))
	if _, err := os.Stat(p); err != nil {
		testenv.RealModelMissing(tb, "no int8 graph at %s: run `make real-model` (lexsona model import writes it)", p)
	}
	return dir
}

// MustTJSQuantizedFolder is a temporary folder of links to dir's files in
// which onnx/model_quantized.onnx — the file Transformers.js loads for its
// quantized dtype 'q8' — is dir's onnx/model_int8.onnx, so that
// Transformers.js runs the very int8 graph the ort backend runs.
func MustTJSQuantizedFolder(tb testing.TB, dir string) string {
	tb.Helper()
	MustInt8Model(tb, dir)
	abs, err := filepath.Abs(dir)
	if err != nil {
		tb.Fatal(err)
	}
	out := filepath.Join(tb.TempDir(), filepath.Base(abs))
	if err := os.MkdirAll(filepath.Join(out, "onnx"), 0o755); err != nil {
		tb.Fatal(err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "onnx" || e.Name()[0] == '.' {
			continue
		}
		if err := os.Symlink(filepath.Join(abs, e.Name()), filepath.Join(out, e.Name())); err != nil {
			tb.Fatal(err)
		}
	}
	for link, target := range map[string]string{"model.onnx": "model.onnx", "model_quantized.onnx": modelimport.VariantFile(models.VariantInt8)} {
		if err := os.Symlink(filepath.Join(abs, "onnx", target), filepath.Join(out, "onnx", link)); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}
