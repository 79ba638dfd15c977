package server

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/internal/setup/setuptest"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

// testNow is the clock of test servers.
var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testEnv is a server over a temp-dir store with the lexical embedder and
// the default registry synced.
type testEnv struct {
	t   testing.TB
	srv *Server
	db  *store.DB
	emb models.Embedder
	h   http.Handler
}

// MustOpenStore opens a store in a temp dir and closes it at the end of the test.
func MustOpenStore(tb testing.TB) *store.DB { return storetest.OpenSQLite(tb) }

// MustLexical opens the lexical embedder over db as `lexsona serve` does
// (MustAssemble).
func MustLexical(tb testing.TB, db *store.DB) models.Embedder {
	return setuptest.Lexical(tb, db, testNow.Add(-24*time.Hour))
}

// MustAssemble readies db with emb through the composition root, as `lexsona
// serve` does (setup.Assemble): the registries in force synced and embedded
// (the default pack into an empty store; a lexical embedder fitted on
// them), with the sync's events a day before testNow.
func MustAssemble(tb testing.TB, db *store.DB, emb models.Embedder) *setup.Core {
	return setuptest.Assemble(tb, db, emb, testNow.Add(-24*time.Hour))
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testBands are the test servers' classifier options: fixed bands, and no
// calibration file from the machine running the tests.
func testBands(tb testing.TB) classifier.Options {
	return classifier.Options{Thresholds: &classifier.Thresholds{Auto: 0.6, Confirm: 0.35}, CalibrationDir: tb.TempDir()}
}

// plainMemory is Config.Memory over db with the product's options (the
// calibration folder of the machine's data folder, the clock time.Now).
func plainMemory(db *store.DB) tenant.MemoryFunc {
	return memoryOver(db, classifier.Options{}, new(func() time.Time))
}

// memoryOver is a test server's Config.Memory: the use cases over db with
// the classifier options copts and the clock *now, read when New builds the
// memory (so that an edit of Config.Now before New sets the memory's clock
// too; nil: time.Now).
func memoryOver(db *store.DB, copts classifier.Options, now *func() time.Time) tenant.MemoryFunc {
	return func(e tenant.Embedders) *memory.Service {
		return memory.New(db, e.Classify, memory.Options{Classifier: copts, Now: *now, Bulk: e.Bulk})
	}
}

// newTestEnv builds a server; edit adjusts its config before New.
func newTestEnv(tb testing.TB, edit func(*Config)) *testEnv {
	tb.Helper()
	db := MustOpenStore(tb)
	emb := MustLexical(tb, db)
	cfg := Config{Embedder: emb, Logger: discardLogger(), Now: func() time.Time { return testNow }}
	cfg.Memory = memoryOver(db, testBands(tb), &cfg.Now)
	if edit != nil {
		edit(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	tb.Cleanup(func() { srv.Close() })
	return &testEnv{t: tb, srv: srv, db: db, emb: emb, h: srv.Handler()}
}

// request is one HTTP call made through the handler.
type request struct {
	method, path string
	body         string
	header       map[string]string
}

// response is what the handler answered.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		tb.Fatalf("decoding %s: %v", r.body, err)
	}
}

// errorBody decodes an error answer, failing unless it has the documented shape.
func (r response) errorBody(tb testing.TB) ErrorDetail {
	tb.Helper()
	var eb ErrorBody
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&eb); err != nil || eb.Error.Code == "" || eb.Error.Message == "" {
		tb.Fatalf("error body %q is not {\"error\": {\"code\", \"message\"}}: %v", r.body, err)
	}
	return eb.Error
}

func (e *testEnv) do(r request) response {
	e.t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	req := httptest.NewRequest(r.method, r.path, body)
	if r.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

func (e *testEnv) get(path string) response { return e.do(request{method: http.MethodGet, path: path}) }

func (e *testEnv) post(path, body string) response {
	return e.do(request{method: http.MethodPost, path: path, body: body})
}

// mustStatus fails unless r has status want.
func mustStatus(tb testing.TB, r response, want int) {
	tb.Helper()
	if r.status != want {
		tb.Fatalf("status %d, want %d; body %s", r.status, want, r.body)
	}
}
