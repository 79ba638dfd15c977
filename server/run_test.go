package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/server/servertest"
	"github.com/lexsona/lexsona/store"
)

// startFake runs a server over a fake memory (mem, the default tenant's)
// on a free loopback port, for tests of what the server does with
// connections; edit adjusts its config.
func startFake(t *testing.T, edit func(*Config), mem *servertest.Memory) (s *Server, base string) {
	t.Helper()
	s, _ = newFakeServer(t, func(c *Config) {
		c.Addr = "127.0.0.1:0"
		if edit != nil {
			edit(c)
		}
	}, mem, nil)
	base, _ = run(t, s)
	return s, base
}

// run starts s (on a free loopback port) and runs it until the test ends;
// stop cancels it and returns Run's error and how long the shutdown took.
func run(t *testing.T, s *Server) (base string, stop func() (time.Duration, error)) {
	t.Helper()
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Addr(), "127.0.0.1:") || strings.HasSuffix(s.Addr(), ":0") {
		t.Fatalf("Addr() = %q", s.Addr())
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	var once sync.Once
	var runErr error
	var took time.Duration
	stop = func() (time.Duration, error) {
		once.Do(func() {
			start := time.Now()
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("Run did not return within 15 s of cancellation")
			}
			took = time.Since(start)
		})
		return took, runErr
	}
	t.Cleanup(func() { stop() })
	return "http://" + s.Addr(), stop
}

func TestRunServesAndShutsDownDurably(t *testing.T) {
	_, base, db, stop := startServer(t, nil)
	client := &http.Client{Timeout: 10 * time.Second}
	if r, err := client.Get(base + "/readyz"); err != nil || r.StatusCode != 200 {
		t.Fatalf("readyz: %v %v", r, err)
	}
	var mu sync.Mutex
	acked := map[int64]string{} // event id → rule
	// Shutdown starts once this many corrections are acknowledged, while
	// the clients keep sending.
	const before = 20
	enough := make(chan struct{})
	rules := []string{ruleSed, "tool.use-ripgrep", "tool.pnpm-not-npm", "tool.uv-not-pip"}
	var wg sync.WaitGroup
	stopSending := make(chan struct{})
	for c := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stopSending:
					return
				default:
				}
				rule := rules[(c+i)%len(rules)]
				body := fmt.Sprintf(`{"text":"correction %d-%d","rule_id":%q}`, c, i, rule)
				resp, err := client.Post(base+"/v1/corrections", "application/json", strings.NewReader(body))
				if err != nil {
					return // the server went away: fine, this one was not acknowledged
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 201 {
					if resp.StatusCode != 503 {
						t.Errorf("status %d: %s", resp.StatusCode, b)
					}
					return
				}
				var res struct {
					EventID int64  `json:"event_id"`
					RuleID  string `json:"rule_id"`
				}
				if err := json.Unmarshal(b, &res); err != nil || res.EventID == 0 {
					t.Errorf("ack %s: %v", b, err)
					return
				}
				mu.Lock()
				acked[res.EventID] = res.RuleID
				if len(acked) == before {
					close(enough)
				}
				mu.Unlock()
			}
		})
	}
	select {
	case <-enough:
	case <-time.After(30 * time.Second):
		t.Fatalf("fewer than %d corrections acknowledged within 30 s", before)
	}
	took, err := stop() // shut down while clients are still sending
	close(stopSending)
	wg.Wait()
	if err != nil {
		t.Errorf("Run: %v", err)
	}
	if took > 10*time.Second {
		t.Errorf("shutdown took %v, over 10 s", took)
	}
	if len(acked) < before {
		t.Fatalf("only %d corrections acknowledged", len(acked))
	}
	// Run closed the store: reopen it and find every acknowledged event.
	if err := db.Writable(context.Background()); err == nil {
		t.Errorf("the store is still open after Run returned")
	}
	db2, err := store.OpenWith(context.Background(), db.Path(), store.Options{Clock: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	found := map[int64]bool{}
	perRule := map[string]int{}
	for _, rule := range rules {
		evs, err := db2.History(context.Background(), rule, 0, 10000)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if ev.EventType == engine.EventReinforcement {
				found[ev.EventID] = true
				perRule[rule]++
			}
		}
		r, err := db2.GetRule(context.Background(), rule)
		if err != nil {
			t.Fatal(err)
		}
		if r.Reinforcements != perRule[rule] || r.Alpha != 2+float64(perRule[rule]) {
			t.Errorf("%s: %d reinforcements, alpha %g, but %d events", rule, r.Reinforcements, r.Alpha, perRule[rule])
		}
	}
	for id, rule := range acked {
		if !found[id] {
			t.Errorf("acknowledged event %d on %s is not in the database", id, rule)
		}
	}
	t.Logf("%d acknowledged corrections, all durable; shutdown took %v", len(acked), took.Round(time.Millisecond))
}

// TestShutdownDrainsInFlight: a request in flight when shutdown starts
// (waiting on the model) completes with its answer.
func TestShutdownDrainsInFlight(t *testing.T) {
	var g *gatedEmbedder
	s, base, _, stop := startServer(t, func(c *Config) {
		g = &gatedEmbedder{Embedder: c.Embedder, entered: make(chan struct{}, 8), gate: make(chan struct{})}
		c.Embedder = g
	})
	type result struct {
		status int
		err    error
	}
	res := make(chan result, 1)
	go func() {
		r, err := http.Post(base+"/v1/corrections", "application/json", strings.NewReader(`{"text":"`+textAuto+`"}`))
		if err != nil {
			res <- result{0, err}
			return
		}
		r.Body.Close()
		res <- result{r.StatusCode, nil}
	}()
	<-g.entered // the request is in flight, so Run is serving
	shuttingDown := make(chan struct{})
	s.startMu.Lock()
	s.httpSrv.RegisterOnShutdown(func() { close(shuttingDown) }) // called once the listener is closed
	s.startMu.Unlock()
	stopped := make(chan error, 1)
	go func() { _, err := stop(); stopped <- err }()
	select {
	case <-shuttingDown:
	case <-time.After(15 * time.Second):
		t.Fatal("shutdown did not begin within 15 s")
	}
	if err := s.ready(context.Background()); engine.ErrorCode(err) != engine.EUNAVAILABLE {
		t.Errorf("ready during shutdown: %v", err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Errorf("new connections are still accepted during shutdown")
	}
	close(g.gate)
	r := <-res
	if r.err != nil || r.status != 201 {
		t.Errorf("in-flight request: %d %v", r.status, r.err)
	}
	if err := <-stopped; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// TestShutdownTimesOut: a request still waiting on the model when the
// shutdown timeout ends is cancelled, and Run returns once the model answers.
func TestShutdownTimesOut(t *testing.T) {
	var g *gatedEmbedder
	gaveUp := &logSignal{msg: "shutdown: in-flight requests did not finish in time; cancelling them", fired: make(chan struct{})}
	_, base, _, stop := startServer(t, func(c *Config) {
		g = &gatedEmbedder{Embedder: c.Embedder, entered: make(chan struct{}, 8), gate: make(chan struct{})}
		c.Embedder, c.ShutdownTimeout, c.Logger = g, 200*time.Millisecond, slog.New(gaveUp)
	})
	go http.Post(base+"/v1/classify", "application/json", strings.NewReader(`{"text":"`+textAuto+`"}`))
	<-g.entered
	go func() { <-gaveUp.fired; close(g.gate) }() // the model answers after shutdown gave up waiting
	took, err := stop()
	if err != nil {
		t.Errorf("Run: %v", err)
	}
	select {
	case <-gaveUp.fired:
	default:
		t.Error("Run returned without the shutdown timing out")
	}
	if took > 5*time.Second {
		t.Errorf("shutdown took %v", took)
	}
}

// logSignal is a slog handler that discards every record and closes fired
// when one with message msg is logged.
type logSignal struct {
	msg   string
	fired chan struct{}
	once  sync.Once
}

func (h *logSignal) Enabled(context.Context, slog.Level) bool { return true }
func (h *logSignal) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logSignal) WithGroup(string) slog.Handler            { return h }
func (h *logSignal) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.once.Do(func() { close(h.fired) })
	}
	return nil
}

func TestStartBadAddr(t *testing.T) {
	db := MustOpenStore(t)
	s, err := New(Config{Addr: "256.0.0.1:99999", Memory: plainMemory(db), Embedder: lexical.New(0), Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background()); engine.ErrorCode(err) != engine.EUNAVAILABLE {
		t.Errorf("Run on a bad address: %v", err)
	}
}

func TestNewNeedsMemoryAndEmbedder(t *testing.T) {
	if _, err := New(Config{}); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("New without a memory: %v", err)
	}
	if _, err := New(Config{Memory: plainMemory(MustOpenStore(t))}); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("New without an embedder: %v", err)
	}
}
