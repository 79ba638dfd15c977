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
)

// testNow is the clock of test servers.
var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

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
	return e.doWith(r, nil)
}

// doWith makes request r, edited by edit (when not nil) before it is sent.
func (e *testEnv) doWith(r request, edit func(*http.Request)) response {
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
	if edit != nil {
		edit(req)
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
