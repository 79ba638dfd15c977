package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
)

// Bad sources are usage-class errors (exit 2) that say what is wrong.
func TestModelImportRefuses(t *testing.T) {
	c := newCLI(t)
	dir := t.TempDir()
	tarball := filepath.Join(dir, "m.tar.gz")
	os.WriteFile(tarball, []byte("x"), 0o644)
	st := filepath.Join(dir, "st")
	os.MkdirAll(st, 0o755)
	os.WriteFile(filepath.Join(st, "model.safetensors"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(st, "tokenizer.json"), []byte(`{"model":{"type":"WordPiece","vocab":{"a":0}}}`), 0o644)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no source", []string{"model", "import"}, "wants one source"},
		{"two sources", []string{"model", "import", "a", "b"}, "wants one source"},
		{"missing source", []string{"model", "import", filepath.Join(dir, "nope")}, "no source at"},
		{"unknown kind", []string{"model", "import", tarball}, "unknown kind"},
		{"another vocabulary", []string{"model", "import", st}, "its vocabulary has 1 tokens, all-MiniLM-L6-v2's has 30522"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := c.run(append(tt.args, "--model-dir", filepath.Join(t.TempDir(), "m"))...)
			if code != 2 || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errs, tt.want)
			}
		})
	}
}

// Importing the real model's folder (an ONNX folder) reports what it did,
// and a second import says it is already there.
func TestModelImportReports(t *testing.T) {
	src := testenv.RealModelDir(t)
	c := newCLI(t)
	dst := filepath.Join(t.TempDir(), "m")
	m := c.mustJSON("model", "import", src, "--model-dir", dst)
	if m["status"] != "imported" || m["kind"] != "onnx folder" || m["model_dir"] != dst || m["graph_sha256"] == "" {
		t.Errorf("--json: %v", m)
	}
	code, out, errs := c.run("model", "import", src, "--model-dir", dst)
	if code != 0 || !strings.HasPrefix(out, "already imported: "+dst) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
