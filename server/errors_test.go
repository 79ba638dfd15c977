package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/server/servertest"
)

func TestErrorStatusTable(t *testing.T) {
	for _, c := range []struct {
		err    error
		status int
		code   string
		msg    string
	}{
		{engine.Errorf(engine.EINVALID, "bad"), 400, "invalid", "bad"},
		{engine.Errorf(engine.ENOTFOUND, "gone"), 404, "not_found", "gone"},
		{engine.Errorf(engine.ECONFLICT, "again"), 409, "conflict", "again"},
		{engine.Errorf(engine.ETOOLARGE, "big"), 413, "too_large", "big"},
		{engine.Errorf(engine.EOVERLOADED, "busy"), 429, "overloaded", "busy"},
		{engine.Errorf(engine.EUNAVAILABLE, "down"), 503, "unavailable", "down"},
		{engine.Errorf(engine.EINTERNAL, "secret detail"), 500, "internal", "internal error"},
		{fmt.Errorf("store: read /home/u/x.db: %w", errors.New("disk I/O error")), 500, "internal", "internal error"},
		{fmt.Errorf("wrapped: %w", engine.Errorf(engine.ENOTFOUND, "rule x")), 404, "not_found", "rule x"},
		{engine.Errorf("made_up", "x"), 500, "internal", "internal error"},
		{context.DeadlineExceeded, 503, "unavailable", "took too long"},
		{echo.ErrNotFound, 404, "not_found", "no such endpoint"},
		{echo.ErrMethodNotAllowed, 405, "method_not_allowed", "not allowed"},
		{echo.ErrStatusRequestEntityTooLarge, 413, "too_large", "1048576"},
		{echo.NewHTTPError(http.StatusBadRequest, "bad param"), 400, "invalid", "bad param"},
		{echo.NewHTTPError(http.StatusTeapot, "tea"), 500, "internal", "internal error"},
		{echo.ErrUnsupportedMediaType, 400, "invalid", "Unsupported Media Type"},
		{&http.MaxBytesError{Limit: 10}, 413, "too_large", "10-byte"},
		{&apiError{codeForbidden, "read only"}, 403, "forbidden", "read only"},
	} {
		status, code, msg, _ := classify(c.err, DefaultBodyLimit)
		if status != c.status || code != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("classify(%v) = %d %s %q, want %d %s %q", c.err, status, code, msg, c.status, c.code, c.msg)
		}
		if strings.Contains(msg, "secret") || strings.Contains(msg, "disk") {
			t.Errorf("classify(%v) shows internal detail: %q", c.err, msg)
		}
	}
}

// TestInternalErrorsAreLoggedNotShown: a store failure the memory reports
// and a panic answer 500 "internal error"; their detail is in the log
// only, and the failure is noted on the memory (its readiness follows).
func TestInternalErrorsAreLoggedNotShown(t *testing.T) {
	var logs testenv.SyncBuffer
	storeErr := fmt.Errorf("store: list rules: %w", errors.New("sql: database is closed"))
	var noted []error
	mem := &servertest.Memory{
		ListRulesFn: func(context.Context, memory.RulesQuery) (memory.RuleList, error) { return memory.RuleList{}, storeErr },
		GetRuleFn:   func(context.Context, string, time.Time) (engine.RuleView, error) { return engine.RuleView{}, storeErr },
		PersonaFn: func(context.Context, memory.PersonaRequest) (engine.Snapshot, error) {
			return engine.Snapshot{}, storeErr
		},
		NoteErrorFn: func(err error) { noted = append(noted, err) },
	}
	e, _ := newFakeEnv(t, func(c *Config) { c.Logger = slog.New(slog.NewJSONHandler(&logs, nil)) }, mem, nil)
	e.srv.add(http.MethodGet, "/test/panic", func(echo.Context) error { panic("boom at secret place") })
	r := e.get("/test/panic")
	mustStatus(t, r, 500)
	if eb := r.errorBody(t); eb.Code != "internal" || eb.Message != "internal error" {
		t.Errorf("panic answer: %s", r.body)
	}
	if !strings.Contains(logs.String(), "boom at secret place") || !strings.Contains(logs.String(), r.header.Get("X-Request-Id")) {
		t.Errorf("the panic is not logged with its request id: %s", logs.String())
	}
	for _, path := range []string{"/v1/rules", "/v1/rules/" + ruleSed, "/v1/persona"} {
		r := e.get(path)
		if r.status < 500 {
			t.Errorf("%s with a closed store: %d", path, r.status)
			continue
		}
		eb := r.errorBody(t)
		if strings.Contains(eb.Message, "sql") || strings.Contains(eb.Message, "closed") || strings.Contains(eb.Message, "store:") {
			t.Errorf("%s shows internal detail: %q", path, eb.Message)
		}
	}
	if !strings.Contains(logs.String(), `"err":"store: `) {
		t.Errorf("the store error is not logged: %s", logs.String())
	}
	if n := len(slices.DeleteFunc(noted, func(err error) bool { return !errors.Is(err, storeErr) })); n != 3 {
		t.Errorf("the store error was noted on the memory %d times, want 3 (once a request)", n)
	}
	mem.WritableFn = func(context.Context) error { return storeErr }
	r = e.get("/readyz")
	mustStatus(t, r, 503)
	checkDoc(t, "GET", "/readyz", r)
	if eb := r.errorBody(t); eb.Message != "the store is not writable" {
		t.Errorf("readyz shows detail: %q", eb.Message)
	}
	mustStatus(t, e.get("/healthz"), 200)
}

func TestMetricsExposed(t *testing.T) {
	e := newTestEnv(t, nil)
	e.post("/v1/classify", `{"text":"`+textAuto+`"}`)
	e.post("/v1/classify", `{"text":"`+textAuto+`"}`) // a cache hit
	e.post("/v1/corrections", `{"text":"`+textNewRule+`"}`)
	e.get("/no/such/path/123")
	r := e.get("/metrics")
	mustStatus(t, r, 200)
	body := string(r.body)
	for _, want := range []string{
		`lexsona_http_request_duration_seconds_count{method="POST",route="/v1/classify",status="200"} 2`,
		`lexsona_http_request_duration_seconds_count{method="other",route="unmatched",status="404"} 1`,
		`lexsona_embedding_batch_size_count`,
		`lexsona_embedding_queue_wait_seconds_count`,
		`lexsona_embedding_queue_length 0`,
		`lexsona_classifier_decisions_total{decision="auto_match"} 2`,
		`lexsona_classifier_decisions_total{decision="new_rule"} 1`,
		`lexsona_embedding_cache_hits_total`,
		`lexsona_rules{state="candidate"} 1`,
		`lexsona_rules{state="inactive"}`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(body, "/no/such/path") {
		t.Errorf("unmatched paths leak into metric labels")
	}
}
