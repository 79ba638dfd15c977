package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
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
func MustOpenStore(tb testing.TB) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "lexsona.db"))
	if err != nil {
		tb.Fatalf("store.Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// MustLexical opens the lexical embedder fitted on, and synced with, the
// default registry.
func MustLexical(tb testing.TB, db *store.DB) models.Embedder {
	tb.Helper()
	ctx := context.Background()
	emb, err := auto.Open(ctx, models.Options{Backend: "lexical", Logger: discardLogger()})
	if err != nil {
		tb.Fatalf("models.Open lexical: %v", err)
	}
	tb.Cleanup(func() { emb.Close() })
	if f, ok := emb.(models.Fitter); ok {
		f.Fit(registry.Default().Texts())
	}
	if _, err := registry.Sync(ctx, db, emb, registry.Default(), registry.SyncOptions{Now: testNow.Add(-24 * time.Hour)}); err != nil {
		tb.Fatalf("registry.Sync: %v", err)
	}
	return emb
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newTestEnv builds a server; edit adjusts its config before New.
func newTestEnv(tb testing.TB, edit func(*Config)) *testEnv {
	tb.Helper()
	db := MustOpenStore(tb)
	emb := MustLexical(tb, db)
	cfg := Config{DB: db, Embedder: emb, Logger: discardLogger(), Now: func() time.Time { return testNow },
		// Fixed bands, and no calibration file from the machine running the tests.
		ClassifierOptions: classifier.Options{Thresholds: &classifier.Thresholds{Auto: 0.6, Confirm: 0.35}, CalibrationDir: tb.TempDir()},
	}
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
