package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// RequireRealModelEnv names the variable that turns every "the real model (or
// a tool its checks need) is missing" skip into a failure: CI sets it to 1.
const RequireRealModelEnv = "LEXSONA_REQUIRE_REAL_MODEL"

// RealModelDirEnv names the variable that points the tests at another real
// all-MiniLM-L6-v2 folder than <repo>/.cache/models/all-MiniLM-L6-v2.
const RealModelDirEnv = "LEXSONA_REAL_MODEL_DIR"

// RealModelMissing ends the test because something the real-model checks
// need is absent: it skips with the message, or fails with it when
// LEXSONA_REQUIRE_REAL_MODEL=1. The message should name the missing path or
// tool and how to get it.
func RealModelMissing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	Missing(tb, RequireRealModelEnv, format, args...)
}

// RealModelDir returns the folder of the real all-MiniLM-L6-v2 the ort and go
// backends run: $LEXSONA_REAL_MODEL_DIR, else
// <repo>/.cache/models/all-MiniLM-L6-v2 (where `make real-model` imports
// it). A folder without tokenizer.json and model.onnx (or onnx/model.onnx)
// skips the test naming the path, or fails it under
// LEXSONA_REQUIRE_REAL_MODEL=1.
func RealModelDir(tb testing.TB) string {
	tb.Helper()
	dir := realModelDirFromEnv()
	if dir == "" {
		dir = filepath.Join(RepoRoot(tb), ".cache", "models", "all-MiniLM-L6-v2")
	}
	if why := modelFolderProblem(dir); why != "" {
		RealModelMissing(tb, "the real all-MiniLM-L6-v2 is not at %s (%s): run `make real-model` or set %s", dir, why, RealModelDirEnv)
	}
	return dir
}

// modelFolderProblem says what keeps dir from being a model folder the
// backends run, or "" when nothing does.
func modelFolderProblem(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
		return "no tokenizer.json"
	}
	for _, m := range []string{"model.onnx", filepath.Join("onnx", "model.onnx")} {
		if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
			return ""
		}
	}
	return "no model.onnx or onnx/model.onnx"
}

// ModelFolder returns dir when it holds tokenizer.json and model.onnx (or
// onnx/model.onnx); otherwise it ends the test with RealModelMissing, naming
// dir and what, the way to get it.
func ModelFolder(tb testing.TB, dir, what, howToGet string) string {
	tb.Helper()
	if why := modelFolderProblem(dir); why != "" {
		RealModelMissing(tb, "%s is not at %s (%s): %s", what, dir, why, howToGet)
	}
	return dir
}
