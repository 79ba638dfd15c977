package hub

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/models/modeltest"
	"github.com/lexsona/lexsona/models/ort"
)

// fakeHub serves files the way huggingface.co does: /{repo}/resolve/{rev}/{path};
// LFS files (*.onnx) answer with a 302 to a CDN path carrying X-Linked-Etag
// (the sha256) and X-Linked-Size; other files answer 200 with the git blob
// sha1 as ETag. The CDN honours Range requests.
type fakeHub struct {
	srv       *httptest.Server
	files     map[string][]byte
	advertise map[string]string // path → sha256 to claim instead of the real one
	sizeLie   map[string]int64  // path → X-Linked-Size to claim
	cutAfter  map[string]int64  // path → bytes sent before the first CDN transfer breaks off
	mu        sync.Mutex
	log       []string // "GET /cdn/onnx/model.onnx bytes=10-"
}

func newFakeHub(t *testing.T, files map[string][]byte) *fakeHub {
	h := &fakeHub{files: files, advertise: map[string]string{}, sizeLie: map[string]int64{}, cutAfter: map[string]int64{}}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

const fakeRepoPrefix = "/sentence-transformers/all-MiniLM-L6-v2/resolve/main/"

func (h *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.log = append(h.log, strings.TrimSpace(r.Method+" "+r.URL.Path+" "+strings.TrimPrefix(r.Header.Get("Range"), "bytes=")))
	h.mu.Unlock()
	switch {
	case strings.HasPrefix(r.URL.Path, fakeRepoPrefix):
		path := strings.TrimPrefix(r.URL.Path, fakeRepoPrefix)
		b, ok := h.files[path]
		if !ok {
			http.Error(w, "Entry not found", http.StatusNotFound)
			return
		}
		if strings.HasSuffix(path, ".onnx") {
			sum := sha256.Sum256(b)
			etag := hex.EncodeToString(sum[:])
			if a, ok := h.advertise[path]; ok {
				etag = a
			}
			size := int64(len(b))
			if s, ok := h.sizeLie[path]; ok {
				size = s
			}
			w.Header().Set("X-Linked-Etag", `"`+etag+`"`)
			w.Header().Set("X-Linked-Size", strconv.FormatInt(size, 10))
			w.Header().Set("Location", h.srv.URL+"/cdn/"+path)
			w.WriteHeader(http.StatusFound)
			return
		}
		sum := sha1.Sum(append([]byte(fmt.Sprintf("blob %d\x00", len(b))), b...))
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
		http.ServeContent(w, r, path, time.Time{}, bytes.NewReader(b))
	case strings.HasPrefix(r.URL.Path, "/cdn/"):
		path := strings.TrimPrefix(r.URL.Path, "/cdn/")
		b := h.files[path]
		h.mu.Lock()
		cut, ok := h.cutAfter[path]
		delete(h.cutAfter, path)
		h.mu.Unlock()
		if ok && r.Method == http.MethodGet {
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			w.WriteHeader(http.StatusOK)
			w.Write(b[:cut])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // the connection drops mid-transfer
		}
		http.ServeContent(w, r, path, time.Time{}, bytes.NewReader(b))
	default:
		http.NotFound(w, r)
	}
}

func (h *fakeHub) requests(prefix string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, l := range h.log {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// fakeModelFiles are small stand-ins for the hub's files (the model is 1 MB
// of pseudo-random bytes).
func fakeModelFiles(variants ...string) map[string][]byte {
	files := map[string][]byte{}
	for _, p := range Files("") {
		files[p] = []byte(`{"file": "` + p + `"}`)
	}
	model := make([]byte, 1<<20)
	for i := range model {
		model[i] = byte(i*7919 + i>>8)
	}
	files["onnx/model.onnx"] = model
	for _, v := range variants {
		files["onnx/model_"+v+".onnx"] = append([]byte("variant "+v), model[:1000]...)
	}
	return files
}

func (h *fakeHub) pullOptions(dir string) Options {
	return Options{Dir: dir, BaseURL: h.srv.URL, HTTPClient: h.srv.Client()}
}

func mustFilesEqual(t *testing.T, dir string, want map[string][]byte, paths []string) {
	t.Helper()
	for _, p := range paths {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if !bytes.Equal(got, want[p]) {
			t.Errorf("%s: %d bytes differ from the hub's %d", p, len(got), len(want[p]))
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)) + ".part"); err == nil {
			t.Errorf("%s.part left behind", p)
		}
	}
}

// TestPullDownloadsAndVerifies: every file arrives intact, says how it was
// verified, and its bytes are reported to Progress as they arrive; a second
// Pull keeps every file and downloads nothing.
func TestPullDownloadsAndVerifies(t *testing.T) {
	files := fakeModelFiles("qint8_avx512_vnni")
	hub := newFakeHub(t, files)
	dir := filepath.Join(t.TempDir(), "model")
	for _, variant := range []string{"", "qint8_avx512_vnni"} {
		var steps []models.Step
		o := hub.pullOptions(dir)
		o.Variant, o.Progress = variant, func(s models.Step) { steps = append(steps, s) }
		res, err := Pull(context.Background(), o)
		if err != nil {
			t.Fatalf("variant %q: %v", variant, err)
		}
		mustFilesEqual(t, dir, files, Files(variant))
		var got []File
		for _, p := range Files(variant) {
			status := "downloaded"
			if variant != "" && !strings.HasPrefix(p, "onnx/") {
				status = "kept" // the first pull fetched the tokenizer files
			}
			check := "git sha1 verified"
			if strings.HasSuffix(p, ".onnx") {
				check = "sha256 verified"
			}
			got = append(got, File{Path: p, Status: status, Size: int64(len(files[p])), Check: check})
		}
		if d := cmp.Diff(&Result{Dir: dir, Variant: variant, Files: got}, res); d != "" {
			t.Errorf("variant %q: result (-want +got):\n%s", variant, d)
		}
		model := Files(variant)[len(Files(variant))-1]
		var last models.Step
		for _, s := range steps {
			if s.What != model {
				continue
			}
			if !s.Bytes || s.Done < last.Done || s.Total != int64(len(files[model])) {
				t.Errorf("variant %q: progress step %+v after %+v", variant, s, last)
			}
			last = s
		}
		if last.Done != int64(len(files[model])) {
			t.Errorf("variant %q: the progress of %s ends at %+v, want all %d bytes", variant, model, last, len(files[model]))
		}
	}
	gets := len(hub.requests("GET"))
	res, err := Pull(context.Background(), hub.pullOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	if again := hub.requests("GET")[gets:]; len(again) != 0 {
		t.Errorf("a second pull downloaded again: %v", again)
	}
	for _, f := range res.Files {
		if f.Status != "kept" {
			t.Errorf("second pull: %s", f)
		}
	}
}

func TestPullResumes(t *testing.T) {
	files := fakeModelFiles()
	model := files["onnx/model.onnx"]
	t.Run("interrupted transfer", func(t *testing.T) {
		hub := newFakeHub(t, files)
		hub.cutAfter["onnx/model.onnx"] = 300_000
		dir := t.TempDir()
		if _, err := Pull(context.Background(), hub.pullOptions(dir)); err != nil {
			t.Fatal(err)
		}
		mustFilesEqual(t, dir, files, Files(""))
		if d := cmp.Diff([]string{"GET /cdn/onnx/model.onnx", "GET /cdn/onnx/model.onnx 300000-"}, hub.requests("GET /cdn/")); d != "" {
			t.Errorf("CDN requests (-want +got):\n%s", d)
		}
	})
	t.Run("part file from an earlier run", func(t *testing.T) {
		hub := newFakeHub(t, files)
		dir := t.TempDir()
		modeltest.MustWrite(t, filepath.Join(dir, "onnx", "model.onnx.part"), model[:123_456])
		res, err := Pull(context.Background(), hub.pullOptions(dir))
		if err != nil {
			t.Fatal(err)
		}
		mustFilesEqual(t, dir, files, Files(""))
		if d := cmp.Diff([]string{"GET /cdn/onnx/model.onnx 123456-"}, hub.requests("GET /cdn/")); d != "" {
			t.Errorf("CDN requests (-want +got):\n%s", d)
		}
		if f := res.Files[len(res.Files)-1]; f.Path != "onnx/model.onnx" || f.Status != "resumed" {
			t.Errorf("the model file: %s, want resumed", f)
		}
	})
	t.Run("corrupt part file", func(t *testing.T) {
		hub := newFakeHub(t, files)
		dir := t.TempDir()
		part := filepath.Join(dir, "onnx", "model.onnx.part")
		modeltest.MustWrite(t, part, bytes.Repeat([]byte{0xAA}, 5000))
		_, err := Pull(context.Background(), hub.pullOptions(dir))
		modeltest.WantErr(t, err, engine.EUNAVAILABLE, "onnx/model.onnx", "checksum mismatch", "run the command again")
		if _, err := os.Stat(part); !os.IsNotExist(err) {
			t.Errorf("the bad .part is still there (%v)", err)
		}
		if _, err := Pull(context.Background(), hub.pullOptions(dir)); err != nil {
			t.Fatalf("pull after removing the bad part: %v", err)
		}
		mustFilesEqual(t, dir, files, Files(""))
	})
}

func TestPullRejects(t *testing.T) {
	files := fakeModelFiles()
	tests := []struct {
		name      string
		setup     func(h *fakeHub, o *Options)
		code      string
		fragments []string
	}{
		{"checksum mismatch", func(h *fakeHub, o *Options) { h.advertise["onnx/model.onnx"] = strings.Repeat("ab", 32) }, engine.EUNAVAILABLE, []string{"onnx/model.onnx", "checksum mismatch", strings.Repeat("ab", 32)}},
		{"size mismatch", func(h *fakeHub, o *Options) { h.sizeLie["onnx/model.onnx"] = 1000 }, engine.EUNAVAILABLE, []string{"onnx/model.onnx", "size mismatch"}},
		{"unknown variant", func(h *fakeHub, o *Options) { o.Variant = "fp64" }, engine.EINVALID, []string{"onnx/model_fp64.onnx", "--variant", "qint8_avx512_vnni"}},
		{"bad variant", func(h *fakeHub, o *Options) { o.Variant = "../../x" }, engine.EINVALID, []string{"variant"}},
		{"folder escapes its root", func(h *fakeHub, o *Options) { o.Dir = "models/../../x" }, engine.EINVALID, []string{"escapes its root"}},
		{"unknown repository", func(h *fakeHub, o *Options) { o.Repo = "someone/else" }, engine.EINVALID, []string{"someone/else", "HTTP 404"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hub := newFakeHub(t, files)
			o := hub.pullOptions(filepath.Join(t.TempDir(), "m"))
			tt.setup(hub, &o)
			_, err := Pull(context.Background(), o)
			modeltest.WantErr(t, err, tt.code, tt.fragments...)
			if _, serr := os.Stat(filepath.Join(o.Dir, "onnx", "model.onnx")); serr == nil {
				t.Error("a model file that failed verification was put in place")
			}
		})
	}
}

// TestPullUnreachable: a hub that refuses connections, or accepts them and
// never answers, fails on the connect timeouts, not on the caller's deadline.
func TestPullUnreachable(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0") // accepts (in the kernel), never speaks
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	tests := []struct{ name, url, cause string }{
		{"connection refused", "http://127.0.0.1:1", "refused"},
		{"silent host (TLS)", "https://" + silent.Addr().String(), "TLS handshake timeout"},
		{"silent host (HTTP)", "http://" + silent.Addr().String(), "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := Pull(ctx, Options{Dir: t.TempDir(), BaseURL: tt.url, ConnectTimeout: 200 * time.Millisecond})
			modeltest.WantErr(t, err, engine.EUNAVAILABLE, "cannot reach "+tt.url, tt.cause, "cannot be downloaded from this machine", "--model-dir")
			if ctx.Err() != nil {
				t.Errorf("the pull ran into the caller's deadline instead of its own timeouts")
			}
		})
	}
}

// TestReachable: a hub that has the model answers, one that refuses
// connections is EUNAVAILABLE with the unreachable message; nothing is
// downloaded either way.
func TestReachable(t *testing.T) {
	hub := newFakeHub(t, fakeModelFiles(""))
	dir := filepath.Join(t.TempDir(), "model")
	if err := Reachable(context.Background(), hub.pullOptions(dir)); err != nil {
		t.Fatalf("the fake hub: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Reachable wrote %s (%v)", dir, err)
	}
	for _, l := range hub.log {
		if !strings.HasPrefix(l, "HEAD ") {
			t.Errorf("Reachable sent %q, want HEAD requests only", l)
		}
	}
	err := Reachable(context.Background(), Options{BaseURL: "http://127.0.0.1:1", ConnectTimeout: 200 * time.Millisecond})
	modeltest.WantErr(t, err, engine.EUNAVAILABLE, "cannot reach http://127.0.0.1:1", "cannot be downloaded from this machine", "make install", "lexsona model import")
}

// TestPullThenOpen serves the tiny model and the real tokenizer files through
// the fake hub and embeds with what Pull wrote.
func TestPullThenOpen(t *testing.T) {
	tiny := modeltest.MustTinyModel(t)
	files := map[string][]byte{}
	for _, p := range Files("") {
		src := filepath.Join(tiny, filepath.Base(p))
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = b
	}
	hub := newFakeHub(t, files)
	dir := filepath.Join(t.TempDir(), "pulled")
	if _, err := Pull(context.Background(), hub.pullOptions(dir)); err != nil {
		t.Fatal(err)
	}
	want := modeltest.MustEmbed(t, mustOpen(t, models.Options{Backend: "go", ModelDir: tiny, CacheSize: -1}), []string{"pulled model"})
	backends := []string{"go"}
	if _, why := modeltest.ORTUsable(t, ortUsable); why == "" {
		backends = append(backends, "ort")
	}
	for _, b := range backends {
		e := mustOpen(t, models.Options{Backend: b, ModelDir: dir})
		if d := modeltest.MaxAbsDiff(modeltest.MustEmbed(t, e, []string{"pulled model"}), want); d > 1e-5 {
			t.Errorf("%s on the pulled folder differs by %.3g", b, d)
		}
	}
}

// mustOpen opens the embedder o asks for ($LEXSONA_ORT_LIB's library for
// ort, as the command line would pass it) and closes it when the test ends.
func mustOpen(tb testing.TB, o models.Options) models.Embedder {
	tb.Helper()
	o.Logger, o.OrtLibEnv = slog.New(slog.DiscardHandler), testenv.ORTLib()
	e, err := auto.Open(context.Background(), o)
	if err != nil {
		tb.Fatalf("Open(%+v): %v", o, err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// ortUsable is ONNX Runtime's library when it is usable.
func ortUsable() (string, error) {
	lib, _, _, err := ort.Usable("", testenv.ORTLib(), "")
	return lib, err
}
