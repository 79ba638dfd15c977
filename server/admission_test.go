package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/server/servertest"
)

// holdEmbedder wraps a real embedder and holds every call until released,
// counting the calls that entered.
type holdEmbedder struct {
	models.Embedder
	mu      sync.Mutex
	entered int
	gate    chan struct{}
}

// calls is the number of calls that reached the model.
func (h *holdEmbedder) calls() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.entered
}

func (h *holdEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	h.mu.Lock()
	h.entered++
	h.mu.Unlock()
	select {
	case <-h.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return h.Embedder.Embed(ctx, texts)
}

// longTexts is n distinct texts of about 1,800 bytes each (about 450
// tokens by the lexical embedder's estimate).
func longTexts(n int) []string {
	words := strings.Fields("the quick brown fox jumps over the lazy dog while compiling rust code with cargo and running tests in parallel")
	var b strings.Builder
	for i := 0; b.Len() < 1800; i++ {
		b.WriteString(words[i%len(words)] + " ")
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%d %s", i, b.String())
	}
	return out
}

// TestEmbeddingFloodAdmittedByTokens: 12 clients each sending 512 long
// texts at once. Admission counts their tokens, not their texts: what is
// admitted is what the model gets through within the time budget (here,
// before any rate is measured, one request: nothing else was in flight),
// and every other request is refused at once (while the admitted one is
// still held) with 429 and a Retry-After, instead of all of them being
// admitted and timing out together. The admitted request is then served.
func TestEmbeddingFloodAdmittedByTokens(t *testing.T) {
	var h *holdEmbedder
	e, _ := newFakeEnv(t, func(c *Config) {
		h = &holdEmbedder{Embedder: c.Embedder, gate: make(chan struct{})}
		c.Embedder = h
	}, &servertest.Memory{}, nil)
	body, _ := json.Marshal(map[string]any{"input": longTexts(512)})
	const clients = 12
	results := make(chan response, clients)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() { results <- e.post("/v1/embeddings", string(body)) })
	}
	// Every request is either refused or held in the model.
	refused := 0
	for refused+h.calls() < clients {
		select {
		case r := <-results:
			if r.status != http.StatusTooManyRequests {
				t.Fatalf("a request ended with %d while the admitted ones are held: %s", r.status, r.body)
			}
			if eb := r.errorBody(t); eb.Code != engine.EOVERLOADED || !strings.Contains(eb.Message, "tokens") {
				t.Errorf("refusal %+v, want overloaded naming the tokens", eb)
			}
			if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 {
				t.Errorf("Retry-After %q, want whole seconds ≥ 1", r.header.Get("Retry-After"))
			}
			refused++
		case <-time.After(time.Millisecond):
		}
	}
	if refused != clients-1 {
		t.Errorf("%d requests admitted together, %d refused; want 1 and %d", clients-refused, refused, clients-1)
	}
	close(h.gate)
	wg.Wait()
	close(results)
	r := <-results
	mustStatus(t, r, http.StatusOK)
	var out EmbeddingsResponse
	r.json(t, &out)
	if len(out.Data) != 512 || out.Usage.PromptTokens < 512*400 {
		t.Errorf("served %d vectors, %d tokens; want 512 and about 512×450", len(out.Data), out.Usage.PromptTokens)
	}
	if n := e.srv.admit.TokensInFlight(); n != 0 {
		t.Errorf("%d tokens still in flight after every request ended", n)
	}
}

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time        { return c.t }
func (c *fakeClock) add(d time.Duration)   { c.t = c.t.Add(d) }
func retrySeconds(err error) (int, string) { return retryAfterOf(err), engine.ErrorCode(err) }
func mustAdmit(t *testing.T, b *tokenBudget, n int64) {
	t.Helper()
	if err := b.admit(n, 0); err != nil {
		t.Fatalf("admit(%d) with %d in flight: %v", n, b.inFlight(), err)
	}
}

// TestTokenBudget: the bound is minTokenWindow until a rate is measured,
// then what the measured rate embeds within the budget; a lone call is
// always admitted; failed calls lower the rate; Retry-After is when enough
// of the work in flight should be done, at the rate measured or, before
// one is, at the rate the window assumes.
func TestTokenBudget(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	b := newTokenBudget(15*time.Second, clock.now)

	// Before a rate: a lone call of any size, then minTokenWindow.
	mustAdmit(t, b, 1_000_000)
	if err := b.admit(1, 0); engine.ErrorCode(err) != engine.EOVERLOADED {
		t.Fatalf("a call past the window was admitted (err %v)", err)
	}
	// 1,000,000 tokens at minTokenWindow per 15 s: the bound.
	if s, _ := retrySeconds(b.admit(1, 0)); s != int(maxRetryAfter/time.Second) {
		t.Errorf("Retry-After %d s before a rate, want %s", s, maxRetryAfter)
	}
	clock.add(100 * time.Second) // the lone call took 100 s
	b.release(1_000_000, true)   // 10,000 tokens/s, over a 60 s horizon
	mustAdmit(t, b, minTokenWindow/2)
	mustAdmit(t, b, minTokenWindow/2)
	b.release(minTokenWindow/2, true)
	b.release(minTokenWindow/2, true)

	// Measured: about 10,000 tokens/s (the two instant calls add a little)
	// × 15 s = about 150,000 tokens admitted together.
	if r := b.rate(); r < 10000 || r > 10200 {
		t.Fatalf("rate %.1f tokens/s, want about 10,000", r)
	}
	mustAdmit(t, b, 100_000)
	mustAdmit(t, b, 50_000)
	err := b.admit(30_000, 0)
	if s, code := retrySeconds(err); code != engine.EOVERLOADED || s != 3 {
		t.Errorf("past the window: code %q, Retry-After %d s; want overloaded and 3 s (30,000 tokens at 10,000/s)", code, s)
	}
	clock.add(10 * time.Second)
	b.release(100_000, true)
	mustAdmit(t, b, 30_000)

	// Calls that fail add busy time but no tokens: the rate falls.
	before := b.rate()
	clock.add(30 * time.Second)
	b.release(50_000, false)
	b.release(30_000, false)
	if after := b.rate(); after >= before {
		t.Errorf("rate %.0f after failed calls, want below %.0f", after, before)
	}
	if b.inFlight() != 0 {
		t.Errorf("%d tokens in flight, want 0", b.inFlight())
	}
	// Retry-After is bounded.
	mustAdmit(t, b, 10_000_000)
	if s, _ := retrySeconds(b.admit(10_000_000, 0)); s != int(maxRetryAfter/time.Second) {
		t.Errorf("Retry-After %d s, want the %s bound", s, maxRetryAfter)
	}
}
