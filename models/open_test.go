package models

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
)

// copyModel copies a model folder's top-level files (and onnx/) into a temp folder.
func copyModel(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	for _, f := range []string{"model.onnx", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt", "config.json"} {
		if _, err := os.Stat(filepath.Join(from, f)); err == nil {
			mustCopy(t, filepath.Join(from, f), filepath.Join(to, f))
		}
	}
	return to
}

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
	tiny := MustTinyModel(t)
	tmp := t.TempDir()
	noModel := copyModel(t, tiny)
	os.Remove(filepath.Join(noModel, "model.onnx"))
	corrupt := copyModel(t, tiny)
	if err := os.WriteFile(filepath.Join(corrupt, "model.onnx"), []byte("this is not an ONNX graph"), 0o644); err != nil {
		t.Fatal(err)
	}
	truncated := copyModel(t, tiny)
	b, _ := os.ReadFile(filepath.Join(tiny, "model.onnx"))
	if err := os.WriteFile(filepath.Join(truncated, "model.onnx"), b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	garbageLib := filepath.Join(tmp, "garbage.so")
	if err := os.WriteFile(garbageLib, []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, _ := ortLibForTests(t)
	tests := []struct {
		name      string
		o         Options
		needsORT  bool
		code      string
		fragments []string
	}{
		{"unknown backend", Options{Backend: "gpu"}, false, engine.EINVALID, []string{`"gpu"`, "auto, ort, go or lexical"}},
		{"path escapes its root", Options{Backend: "ort", ModelDir: "models/../../../etc"}, false, engine.EINVALID, []string{"escapes its root"}},
		{"path escapes its root (auto)", Options{ModelDir: "/srv/models/../../../etc"}, false, engine.EINVALID, []string{"escapes its root"}},
		{"missing folder (ort)", Options{Backend: "ort", ModelDir: filepath.Join(tmp, "nope")}, false, engine.EUNAVAILABLE, []string{filepath.Join(tmp, "nope"), "lexsona model pull"}},
		{"missing folder (go)", Options{Backend: "go", ModelDir: filepath.Join(tmp, "nope")}, false, engine.EUNAVAILABLE, []string{filepath.Join(tmp, "nope"), "lexsona model pull"}},
		{"missing model.onnx", Options{Backend: "go", ModelDir: noModel}, false, engine.EUNAVAILABLE, []string{"model.onnx", noModel, "lexsona model pull"}},
		{"missing variant", Options{Backend: "go", ModelDir: tiny, Variant: "qint8_avx512_vnni"}, false, engine.EUNAVAILABLE, []string{"onnx/model_qint8_avx512_vnni.onnx", tiny}},
		{"corrupt model (go)", Options{Backend: "go", ModelDir: corrupt}, false, engine.EUNAVAILABLE, []string{filepath.Join(corrupt, "model.onnx"), "corrupt", "lexsona model pull"}},
		{"truncated model (go)", Options{Backend: "go", ModelDir: truncated}, false, engine.EUNAVAILABLE, []string{filepath.Join(truncated, "model.onnx"), "lexsona model pull"}},
		{"corrupt model (ort)", Options{Backend: "ort", ModelDir: corrupt, OrtLib: lib}, true, engine.EUNAVAILABLE, []string{filepath.Join(corrupt, "model.onnx"), "corrupt", "lexsona model pull"}},
		{"truncated model (ort)", Options{Backend: "ort", ModelDir: truncated, OrtLib: lib}, true, engine.EUNAVAILABLE, []string{filepath.Join(truncated, "model.onnx"), "lexsona model pull"}},
		{"corrupt model (auto)", Options{ModelDir: corrupt, OrtLib: lib}, true, engine.EUNAVAILABLE, []string{filepath.Join(corrupt, "model.onnx")}},
		{"missing library", Options{Backend: "ort", ModelDir: tiny, OrtLib: filepath.Join(tmp, "lib", "libonnxruntime.so.1")}, false, engine.EUNAVAILABLE, []string{filepath.Join(tmp, "lib", "libonnxruntime.so.1"), "make ort", "LEXSONA_ORT_LIB"}},
		{"not a library", Options{Backend: "ort", ModelDir: tiny, OrtLib: garbageLib}, false, engine.EUNAVAILABLE, []string{garbageLib, "make ort"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needsORT {
				MustORTLib(t)
			}
			tt.o.Logger = slog.New(slog.DiscardHandler)
			e, err := Open(context.Background(), tt.o)
			if err == nil {
				e.Close()
			}
			wantErr(t, err, tt.code, tt.fragments...)
		})
	}
}

func TestOpenWrongLibrary(t *testing.T) {
	tiny := MustTinyModel(t)
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
			_, err := Open(context.Background(), Options{Backend: "ort", ModelDir: tiny, OrtLib: lib, Logger: slog.New(slog.DiscardHandler)})
			wantErr(t, err, engine.EUNAVAILABLE, append(tt.fragments, lib)...)
		})
	}
}

// TestOpenAuto checks auto's choice and its single log line.
func TestOpenAuto(t *testing.T) {
	tiny := MustTinyModel(t)
	oldLib := fakeORTLib(t, "1.16.3")
	// An empty Hugging Face cache, so "no model" holds on a machine whose own
	// cache has the model (auto would import it from there).
	hf := t.TempDir()
	t.Setenv("HF_HUB_CACHE", filepath.Join(hf, "hub"))
	t.Setenv("HF_HOME", hf)
	tests := []struct {
		name      string
		o         Options
		needsORT  bool
		backend   string
		fragments []string
	}{
		{"no model: lexical", Options{ModelDir: filepath.Join(t.TempDir(), "none")}, false, "lexical", []string{"embedder: lexical", "no model folder", "lexsona model pull"}},
		{"old library: go", Options{ModelDir: tiny, OrtLib: oldLib}, false, "go", []string{"embedder: go", "slow", "too old", "make ort", "lexsona model pull"}},
		{"model and library: ort", Options{ModelDir: tiny}, true, "ort", []string{"embedder: ort", "1.", "lexsona model pull"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needsORT {
				tt.o.OrtLib = MustORTLib(t)
			}
			var logs bytes.Buffer
			tt.o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			e := MustOpen(t, tt.o)
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
			MustEmbed(t, e, []string{"hello"})
		})
	}
}

func TestOpenVariantAndLayout(t *testing.T) {
	tiny := MustTinyModel(t)
	dir := copyModel(t, tiny)
	if err := os.MkdirAll(filepath.Join(dir, "onnx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "model.onnx"), filepath.Join(dir, "onnx", "model_qint8_avx512_vnni.onnx")); err != nil {
		t.Fatal(err)
	}
	for _, variant := range []string{"qint8_avx512_vnni", ""} { // "": the only file in onnx/
		e := MustOpen(t, Options{Backend: "go", ModelDir: dir, Variant: variant})
		if want, _ := fileSHA256(filepath.Join(tiny, "model.onnx")); e.Identity().SHA256 != want {
			t.Errorf("variant %q: identity %+v, want sha256 %s", variant, e.Identity(), want)
		}
	}
}

func TestOpenCachesAndIdentity(t *testing.T) {
	tiny := MustTinyModel(t)
	e := MustOpen(t, Options{Backend: "go", ModelDir: tiny})
	id := e.Identity()
	if id.Name != "random-bert-h32-l2-seed1" && id.Name != ModelName || id.Dims != 32 || len(id.SHA256) != 64 {
		t.Errorf("identity %+v", id)
	}
	MustEmbed(t, e, []string{"a", "a", "b"})
	MustEmbed(t, e, []string{"b"})
	if st, ok := StatsOf(e); !ok || st.Hits != 2 || st.Misses != 2 || st.Capacity != DefaultCacheSize {
		t.Errorf("cache stats %+v, %v", st, ok)
	}
	if _, ok := StatsOf(MustOpen(t, Options{Backend: "lexical", CacheSize: -1})); ok {
		t.Error("CacheSize -1 still caches")
	}
}

func TestDefaultModelDir(t *testing.T) {
	home, _ := os.UserHomeDir()
	tests := []struct{ env, xdg, want string }{
		{"/models/mini", "/xdg", "/models/mini"},
		{"", "/xdg", "/xdg/lexsona/models/all-MiniLM-L6-v2"},
		{"", "relative/xdg", filepath.Join(home, ".local/share/lexsona/models/all-MiniLM-L6-v2")},
		{"", "", filepath.Join(home, ".local/share/lexsona/models/all-MiniLM-L6-v2")},
	}
	for _, tt := range tests {
		t.Setenv("LEXSONA_MODEL_DIR", tt.env)
		t.Setenv("XDG_DATA_HOME", tt.xdg)
		if got := DefaultModelDir(); got != tt.want {
			t.Errorf("LEXSONA_MODEL_DIR=%q XDG_DATA_HOME=%q: %q, want %q", tt.env, tt.xdg, got, tt.want)
		}
	}
}

func TestValidateModelDir(t *testing.T) {
	tests := []struct {
		dir string
		ok  bool
	}{
		{"/a/b/c", true},
		{"/a/b/../c", true},
		{"../shared/models/m", true},
		{"../../x/./y", true},
		{"models/m", true},
		{"models/../m", true},
		{"models/../../m", false},
		{"/a/../../etc", false},
		{"/..", false},
		{"a/b/../../../c", false},
		{"", false},
	}
	for _, tt := range tests {
		if err := ValidateModelDir(tt.dir); (err == nil) != tt.ok {
			t.Errorf("ValidateModelDir(%q) = %v, want ok=%v", tt.dir, err, tt.ok)
		}
	}
}

func TestFindORTLib(t *testing.T) {
	dir := t.TempDir()
	present := filepath.Join(dir, "libonnxruntime.so.1")
	if err := os.WriteFile(present, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.so")
	tests := []struct {
		name, explicit, env, want, errFragment string
	}{
		{"option wins", present, missing, present, ""},
		{"env", "", present, present, ""},
		{"missing option", missing, "", "", missing},
		{"missing env", "", missing, "", missing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("LEXSONA_ORT_LIB", tt.env)
			got, err := FindORTLib(tt.explicit)
			if tt.errFragment != "" {
				wantErr(t, err, engine.EUNAVAILABLE, tt.errFragment, "make ort")
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("FindORTLib(%q) = %q, %v; want %q", tt.explicit, got, err, tt.want)
			}
		})
	}
}

func TestVersionAtLeast(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{{"1.30.0", true}, {"1.24.0", true}, {"1.24", true}, {"1.23.2", false}, {"2.0.0", true}, {"1.9.0", false}, {"", false}, {"dev", false}}
	for _, tt := range tests {
		if got := versionAtLeast(tt.v, MinORTVersion); got != tt.want {
			t.Errorf("versionAtLeast(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

// TestORTOtherNames: a model whose output is not called last_hidden_state is
// asked for its names and still embeds identically.
func TestORTOtherNames(t *testing.T) {
	MustORTLib(t)
	tiny := MustTinyModel(t)
	dir := copyModel(t, tiny)
	b, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	renamed := bytes.ReplaceAll(b, []byte("last_hidden_state"), []byte("token_embeddings_")) // same length: the protobuf stays valid
	if bytes.Equal(renamed, b) {
		t.Fatal("the tiny model has no last_hidden_state output")
	}
	mustWrite(t, filepath.Join(dir, "model.onnx"), renamed)
	texts := []string{"hello", "use pnpm, not npm"}
	want := MustEmbed(t, MustOpen(t, Options{Backend: "ort", ModelDir: tiny, CacheSize: -1}), texts)
	got := MustEmbed(t, MustOpen(t, Options{Backend: "ort", ModelDir: dir, CacheSize: -1}), texts)
	if d := maxAbsDiff(got, want); d != 0 {
		t.Errorf("renamed output: embeddings differ by %.3g", d)
	}
}
