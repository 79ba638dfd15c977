package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/server/servertest"
)

// embeddingsBody is a /v1/embeddings body with n texts.
func embeddingsBody(n int) string {
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf(`"text %d"`, i)
	}
	return `{"input":[` + strings.Join(texts, ",") + `]}`
}

// TestEmbeddingAdmission: large /v1/embeddings requests, which skip the
// batch queue, are admitted against one bound of texts in flight, shared
// with classify; past it the answer is 429 with Retry-After, and once the
// work in flight ends, requests are admitted again.
func TestEmbeddingAdmission(t *testing.T) {
	var g *gatedEmbedder
	e := newTestEnv(t, func(c *Config) {
		g = &gatedEmbedder{Embedder: c.Embedder, entered: make(chan struct{}, 64), gate: make(chan struct{})}
		c.Embedder, c.MaxTextsInFlight = g, MaxEmbeddingInputs
	})
	statuses := make(chan int, 1)
	go func() { statuses <- e.post("/v1/embeddings", embeddingsBody(MaxEmbeddingInputs)).status }()
	<-g.entered // 2048 texts in flight, held in the model
	for _, r := range []struct{ path, body string }{
		{"/v1/embeddings", embeddingsBody(MaxEmbeddingInputs)},
		{"/v1/embeddings", embeddingsBody(100)},
		{"/v1/classify", `{"text":"` + textAuto + `"}`},
		{"/v1/corrections", `{"text":"` + textAuto + `"}`},
	} {
		resp := e.post(r.path, r.body)
		mustStatus(t, resp, http.StatusTooManyRequests)
		if resp.header.Get("Retry-After") == "" {
			t.Errorf("%s: 429 without Retry-After", r.path)
		}
		if eb := resp.errorBody(t); eb.Code != engine.EOVERLOADED || !strings.Contains(eb.Message, "at most 2048 at once") {
			t.Errorf("%s: %+v", r.path, eb)
		}
		checkDoc(t, http.MethodPost, r.path, resp)
	}
	go func() {
		for range g.entered {
		}
	}()
	close(g.gate)
	if s := <-statuses; s != 200 {
		t.Errorf("the admitted request ended with %d", s)
	}
	// The work in flight ended: requests are admitted again.
	mustStatus(t, e.post("/v1/embeddings", embeddingsBody(10)), 200)
	mustStatus(t, e.post("/v1/embeddings", embeddingsBody(MaxEmbeddingInputs)), 200)
	mustStatus(t, e.post("/v1/classify", `{"text":"`+textAuto+`"}`), 200)
	if n := e.srv.admit.InFlight(); n != 0 {
		t.Errorf("%d texts still counted in flight", n)
	}
}

// TestMaxTextsInFlightValidated: a bound below one request's texts is refused.
func TestMaxTextsInFlightValidated(t *testing.T) {
	_, err := newServer(Config{Embedder: lexical.New(0), MaxTextsInFlight: 100})
	if engine.ErrorCode(err) != engine.EINVALID {
		t.Fatalf("newServer: %v, want EINVALID", err)
	}
}

// TestWriteTimeoutPerRoute: the server-wide write timeout derives from the
// request timeout, not from the registry sync's; the sync route alone gets
// its own (longer) write deadline.
func TestWriteTimeoutPerRoute(t *testing.T) {
	cfg := Config{}
	setDefaults(&cfg)
	if want := DefaultRequestTimeout + writeMargin; cfg.WriteTimeout != want {
		t.Errorf("WriteTimeout = %v, want %v (RequestTimeout + %v)", cfg.WriteTimeout, want, writeMargin)
	}
	// A running server: WriteTimeout 300 ms; a route slower than that loses
	// its connection, one with its own 5 s limit answers.
	s, _ := newFakeServer(t, func(c *Config) { c.Addr, c.WriteTimeout = "127.0.0.1:0", 300*time.Millisecond }, &servertest.Memory{}, nil)
	slow := func(c echo.Context) error {
		time.Sleep(800 * time.Millisecond)
		return c.String(http.StatusOK, "done")
	}
	s.add(http.MethodGet, "/test/slow", slow)
	s.add(http.MethodGet, "/test/slow-own-limit", slow, withTimeout(5*time.Second))
	base, _ := run(t, s)
	client := &http.Client{Timeout: 10 * time.Second}
	if resp, err := client.Get(base + "/test/slow"); err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Errorf("a route past the server's WriteTimeout answered %d %q", resp.StatusCode, b)
	}
	resp, err := client.Get(base + "/test/slow-own-limit")
	if err != nil {
		t.Fatalf("the route with its own limit: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "done" {
		t.Errorf("the route with its own limit: %d %q", resp.StatusCode, b)
	}
}

// TestRuleMetricsCached: the rule counts of /metrics are assessed at most
// once per TTL, however often it is scraped.
func TestRuleMetricsCached(t *testing.T) {
	var mu sync.Mutex
	rules := 5
	mem := &servertest.Memory{CountRuleStatesFn: func(context.Context, time.Time) (map[string]int, error) {
		mu.Lock()
		defer mu.Unlock()
		return map[string]int{"active": rules}, nil
	}}
	clock := newClock(testNow)
	rc := &ruleCollector{mem: mem, ttl: 10 * time.Second, now: clock.now}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(rc)
	active := func() float64 {
		t.Helper()
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		total := 0.0
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				total += m.GetGauge().GetValue()
			}
		}
		return total
	}
	n0 := active()
	for range 5 {
		active()
	}
	if rc.assessed != 1 {
		t.Errorf("6 scrapes within the TTL assessed the rules %d times, want 1", rc.assessed)
	}
	mu.Lock()
	rules++ // a rule is added
	mu.Unlock()
	if n := active(); n != n0 {
		t.Errorf("within the TTL the count moved from %v to %v", n0, n)
	}
	clock.add(10 * time.Second)
	if n := active(); n != n0+1 || rc.assessed != 2 {
		t.Errorf("after the TTL: %v rules (want %v), %d assessments (want 2)", n, n0+1, rc.assessed)
	}
}
