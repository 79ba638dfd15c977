package auto

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modeltest"
)

// fakeORTLib compiles a shared library exporting OrtGetApiBase that reports
// version and offers no API, like an ONNX Runtime too old for onnxruntime_go.
// An empty version builds a library without OrtGetApiBase.
func fakeORTLib(t *testing.T, version string) string {
	t.Helper()
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc is needed to build a fake ONNX Runtime library")
	}
	src := "int lexsona_not_ort(void) { return 1; }\n"
	if version != "" {
		src = `typedef struct { const void *(*GetApi)(unsigned); const char *(*GetVersionString)(void); } B;
static const void *api(unsigned v) { (void) v; return 0; }
static const char *ver(void) { return "` + version + `"; }
static const B base = { api, ver };
const B *OrtGetApiBase(void) { return &base; }
`
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fake.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "libonnxruntime.so.1")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", lib, filepath.Join(dir, "fake.c")).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return lib
}

func TestOpenErrors(t *testing.T) {
	tiny := modeltest.MustTinyModel(t)
	tmp := t.TempDir()
	noModel := modeltest.CopyModel(t, tiny)
	os.Remove(filepath.Join(noModel, "model.onnx"))
	corrupt := modeltest.CopyModel(t, tiny)
	if err := os.WriteFile(filepath.Join(corrupt, "model.onnx"), []byte("this is not an ONNX graph"), 0o644); err != nil {
		t.Fatal(err)
	}
	truncated := modeltest.CopyModel(t, tiny)
	b, _ := os.ReadFile(filepath.Join(tiny, "model.onnx"))
	if err := os.WriteFile(filepath.Join(truncated, "model.onnx"), b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	garbageLib := filepath.Join(tmp, "garbage.so")
	if err := os.WriteFile(garbageLib, []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, _ := modeltest.ORTUsable(t, ortUsable)
	tests := []struct {
		name      string
		o         models.Options
		needsORT  bool
		code      string
		fragments []string
	}{
		{"unknown backend", models.Options{Backend: "gpu"}, false, engine.EINVALID, []string{`"gpu"`, "auto, ort, go or lexical"}},
		{"path escapes its root", models.Options{Backend: "ort", ModelDir: "models/../../../etc"}, false, engine.EINVALID, []string{"escapes its root"}},
		{"path escapes its root (auto)", models.Options{ModelDir: "/srv/models/../../../etc"}, false, engine.EINVALID, []string{"escapes its root"}},
		{"missing folder (ort)", models.Options{Backend: "ort", ModelDir: filepath.Join(tmp, "nope")}, false, engine.EUNAVAILABLE, []string{filepath.Join(tmp, "nope"), "lexsona model pull"}},
		{"missing folder (go)", models.Options{Backend: "go", ModelDir: filepath.Join(tmp, "nope")}, false, engine.EUNAVAILABLE, []string{filepath.Join(tmp, "nope"), "lexsona model pull"}},
		{"missing model.onnx", models.Options{Backend: "go", ModelDir: noModel}, false, engine.EUNAVAILABLE, []string{"model.onnx", noModel, "lexsona model pull"}},
		{"missing variant", models.Options{Backend: "go", ModelDir: tiny, Variant: "qint8_avx512_vnni"}, false, engine.EUNAVAILABLE, []string{"onnx/model_qint8_avx512_vnni.onnx", tiny}},
		{"corrupt model (go)", models.Options{Backend: "go", ModelDir: corrupt}, false, engine.EUNAVAILABLE, []string{filepath.Join(corrupt, "model.onnx"), "corrupt", "lexsona model pull"}},
		{"truncated model (go)", models.Options{Backend: "go", ModelDir: truncated}, false, engine.EUNAVAILABLE, []string{filepath.Join(truncated, "model.onnx"), "lexsona model pull"}},
		{"corrupt model (ort)", models.Options{Backend: "ort", ModelDir: corrupt, OrtLib: lib}, true, engine.EUNAVAILABLE, []string{filepath.Join(corrupt, "model.onnx"), "corrupt", "lexsona model pull"}},
		{"truncated model (ort)", models.Options{Backend: "ort", ModelDir: truncated, OrtLib: lib}, true, engine.EUNAVAILABLE, []string{filepath.Join(truncated, "model.onnx"), "lexsona model pull"}},
		{"corrupt model (auto)", models.Options{ModelDir: corrupt, OrtLib: lib}, true, engine.EUNAVAILABLE, []string{filepath.Join(corrupt, "model.onnx")}},
		{"missing library", models.Options{Backend: "ort", ModelDir: tiny, OrtLib: filepath.Join(tmp, "lib", "libonnxruntime.so.1")}, false, engine.EUNAVAILABLE, []string{filepath.Join(tmp, "lib", "libonnxruntime.so.1"), "make ort", "LEXSONA_ORT_LIB"}},
		{"not a library", models.Options{Backend: "ort", ModelDir: tiny, OrtLib: garbageLib}, false, engine.EUNAVAILABLE, []string{garbageLib, "make ort"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needsORT {
				modeltest.MustORTLib(t, ortUsable)
			}
			tt.o.Logger = slog.New(slog.DiscardHandler)
			e, err := Open(context.Background(), tt.o)
			if err == nil {
				e.Close()
			}
			modeltest.WantErr(t, err, tt.code, tt.fragments...)
		})
	}
}

func TestOpenWrongLibrary(t *testing.T) {
	tiny := modeltest.MustTinyModel(t)
	tests := []struct {
		name, version string
		fragments     []string
	}{
		{"too old", "1.16.3", []string{`"1.16.3"`, "too old", ">= 1.24.0", "make ort"}},
		{"not ONNX Runtime", "", []string{"not an ONNX Runtime library", "make ort"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lib := fakeORTLib(t, tt.version)
			_, err := Open(context.Background(), models.Options{Backend: "ort", ModelDir: tiny, OrtLib: lib, Logger: slog.New(slog.DiscardHandler)})
			modeltest.WantErr(t, err, engine.EUNAVAILABLE, append(tt.fragments, lib)...)
		})
	}
}

// TestOpenAuto checks auto's choice and its single log line.
func TestOpenAuto(t *testing.T) {
	tiny := modeltest.MustTinyModel(t)
	oldLib := fakeORTLib(t, "1.16.3")
	// An empty Hugging Face cache, so "no model" holds on a machine whose own
	// cache has the model (auto would import it from there).
	hf := filepath.Join(t.TempDir(), "hub")
	tests := []struct {
		name      string
		o         models.Options
		needsORT  bool
		backend   string
		fragments []string
	}{
		{"no model: lexical", models.Options{ModelDir: filepath.Join(t.TempDir(), "none")}, false, "lexical", []string{"embedder: lexical", "no model folder", "lexsona model pull"}},
		{"old library: go", models.Options{ModelDir: tiny, OrtLib: oldLib}, false, "go", []string{"embedder: go", "slow", "too old", "make ort", "lexsona model pull"}},
		{"model and library: ort", models.Options{ModelDir: tiny}, true, "ort", []string{"embedder: ort", "1.", "lexsona model pull"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needsORT {
				tt.o.OrtLib = modeltest.MustORTLib(t, ortUsable)
			}
			tt.o.HFHubDir = hf
			var logs bytes.Buffer
			tt.o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			e := mustOpen(t, tt.o)
			if e.Backend() != tt.backend {
				t.Errorf("backend %q, want %q", e.Backend(), tt.backend)
			}
			if n := strings.Count(logs.String(), "\n"); n != 1 {
				t.Errorf("%d log lines, want 1:\n%s", n, logs.String())
			}
			for _, f := range tt.fragments {
				if !strings.Contains(logs.String(), f) {
					t.Errorf("log %q does not mention %q", logs.String(), f)
				}
			}
			modeltest.MustEmbed(t, e, []string{"hello"})
		})
	}
}

func TestOpenVariantAndLayout(t *testing.T) {
	tiny := modeltest.MustTinyModel(t)
	dir := modeltest.CopyModel(t, tiny)
	if err := os.MkdirAll(filepath.Join(dir, "onnx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "model.onnx"), filepath.Join(dir, "onnx", "model_qint8_avx512_vnni.onnx")); err != nil {
		t.Fatal(err)
	}
	for _, variant := range []string{"qint8_avx512_vnni", ""} { // "": the only file in onnx/
		e := mustOpen(t, models.Options{Backend: "go", ModelDir: dir, Variant: variant})
		if want, _ := models.FileSHA256(filepath.Join(tiny, "model.onnx")); e.Identity().SHA256 != want {
			t.Errorf("variant %q: identity %+v, want sha256 %s", variant, e.Identity(), want)
		}
	}
}

func TestOpenCachesAndIdentity(t *testing.T) {
	tiny := modeltest.MustTinyModel(t)
	e := mustOpen(t, models.Options{Backend: "go", ModelDir: tiny})
	id := e.Identity()
	if id.Name != "random-bert-h32-l2-seed1" && id.Name != models.ModelName || id.Dims != 32 || len(id.SHA256) != 64 {
		t.Errorf("identity %+v", id)
	}
	modeltest.MustEmbed(t, e, []string{"a", "a", "b"})
	modeltest.MustEmbed(t, e, []string{"b"})
	if st, ok := models.StatsOf(e); !ok || st.Hits != 2 || st.Misses != 2 || st.Capacity != models.DefaultCacheSize {
		t.Errorf("cache stats %+v, %v", st, ok)
	}
	if _, ok := models.StatsOf(mustOpen(t, models.Options{Backend: "lexical", CacheSize: -1})); ok {
		t.Error("CacheSize -1 still caches")
	}
}

func TestVariantRefused(t *testing.T) {
	dir := modeltest.MustModelCopy(t)
	noInt8 := modeltest.MustModelCopy(t)
	for _, tc := range []struct {
		name      string
		o         models.Options
		code      string
		fragments []string
	}{
		{"int8 on the go backend", models.Options{Backend: "go", ModelDir: dir, Variant: models.VariantInt8}, engine.EINVALID, []string{"go backend", "--embedder ort"}},
		{"no int8 graph", models.Options{Backend: "go", ModelDir: noInt8, Variant: "qint8_avx512_vnni"}, engine.EUNAVAILABLE, []string{"onnx/model_qint8_avx512_vnni.onnx"}},
		{"a path as variant", models.Options{Backend: "go", ModelDir: dir, Variant: "../model"}, engine.EINVALID, []string{"bad model variant", "int8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Logger = slog.New(slog.DiscardHandler)
			e, err := Open(t.Context(), tc.o)
			if err == nil {
				e.Close()
			}
			modeltest.WantErr(t, err, tc.code, tc.fragments...)
		})
	}
}

// auto runs int8 only with a measured rewrite's graph that, on this
// machine, embeds the probe texts like model.onnx; otherwise model.onnx,
// and the log line says why.

// TestSparseOfModelBackend: a model backend, cached, is not a SparseEmbedder.
func TestSparseOfModelBackend(t *testing.T) {
	if s, ok := models.SparseOf(mustOpen(t, models.Options{Backend: "go", ModelDir: modeltest.MustTinyModel(t)})); ok {
		t.Errorf("SparseOf(go backend) = %v", s)
	}
}
