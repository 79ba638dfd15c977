package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/server/servertest"
)

// paceEmbedder wraps a real embedder and takes as long as a model embedding
// perSecond tokens (as the lexical embedder estimates them) would, giving
// up when the call's context ends; it counts the tokens it embedded.
type paceEmbedder struct {
	models.Embedder
	perSecond float64
	embedded  atomic.Int64
}

func (p *paceEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var n int64
	for _, t := range texts {
		n += int64(engine.EstimateTokens(t))
	}
	select {
	case <-time.After(time.Duration(float64(n) / p.perSecond * float64(time.Second))):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.embedded.Add(n)
	return p.Embedder.Embed(ctx, texts)
}

// paceBody is an embeddings request of n distinct texts of about 2,000
// tokens each.
func paceBody(n int) string {
	texts := make([]string, n)
	for i := range texts {
		texts[i] = strconv.Itoa(i) + " " + strings.Repeat("retry the flaky checkout test ", 8000/30)
	}
	b, _ := json.Marshal(map[string]any{"input": texts})
	return string(b)
}

// TestEmbeddingTooLargeRefusedAtOnce: with a model that embeds 40,000
// tokens a second and a 4 s time limit, a request of 200,000 tokens (5 s of
// work) is answered 413 instead of running until its time is up: on a new
// server after the first chunk has measured the rate, and once the rate is
// known before any of its work; a request that fits is served.
func TestEmbeddingTooLargeRefusedAtOnce(t *testing.T) {
	var p *paceEmbedder
	e, _ := newFakeEnv(t, func(c *Config) {
		p = &paceEmbedder{Embedder: c.Embedder, perSecond: 40_000}
		c.Embedder, c.RequestTimeout = p, 4*time.Second
	}, &servertest.Memory{}, nil)
	tooLarge := func(when string, wantEmbedded int64) {
		t.Helper()
		before := p.embedded.Load()
		r := e.post("/v1/embeddings", paceBody(100))
		mustStatus(t, r, http.StatusRequestEntityTooLarge)
		if eb := r.errorBody(t); eb.Code != engine.ETOOLARGE || !strings.Contains(eb.Message, "tokens take the model about") {
			t.Errorf("%s: %+v, want too_large saying how long its tokens take", when, eb)
		}
		if got := p.embedded.Load() - before; got > wantEmbedded {
			t.Errorf("%s: the model embedded %d tokens of the request before it was refused, want at most %d", when, got, wantEmbedded)
		}
		checkDoc(t, http.MethodPost, "/v1/embeddings", r)
	}
	tooLarge("a new server", chunkTokens)
	tooLarge("a measured rate", 0)
	mustStatus(t, e.post("/v1/embeddings", paceBody(40)), http.StatusOK)
}

// TestRetryAfterReflectsTheWorkAhead: with the model measured at 10,000
// tokens a second and a call of 286,720 tokens in flight, a call refused
// for its texts is told to retry when that work should be done (29 s), and
// one refused for its tokens when enough of it should be done for its own
// to fit the 150,000 tokens of the 15 s budget (14 s); not 1 s.
func TestRetryAfterReflectsTheWorkAhead(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	h := &holdEmbedder{Embedder: lexical.New(64), gate: make(chan struct{})}
	a := newAdmission(h, 2*MaxEmbeddingInputs, 15*time.Second, clock.now)
	mustAdmit(t, a.tokens, 100_000)
	clock.add(10 * time.Second)
	a.tokens.release(100_000, true)

	texts := make([]string, MaxEmbeddingInputs)
	counts := make([]int64, len(texts))
	for i := range texts {
		texts[i], counts[i] = "held text "+strconv.Itoa(i), 140
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		vecs, err := a.Embed(withTokenCount(context.Background(), counts), texts)
		if err != nil || len(vecs) != len(texts) {
			t.Errorf("the held call: %d vectors, err %v", len(vecs), err)
		}
	})
	for h.calls() == 0 {
		time.Sleep(time.Millisecond)
	}
	for _, c := range []struct {
		name  string
		texts int
		want  int
	}{
		{"past the texts", MaxEmbeddingInputs + 1, 29},
		{"past the tokens", 1, 14},
	} {
		call := make([]string, c.texts)
		callCounts := make([]int64, c.texts)
		for i := range call {
			call[i], callCounts[i] = "another text", 1000
		}
		_, err := a.Embed(withTokenCount(context.Background(), callCounts), call)
		if s, code := retrySeconds(err); code != engine.EOVERLOADED || s != c.want {
			t.Errorf("%s: code %q, Retry-After %d s; want overloaded, %d s", c.name, code, s, c.want)
		}
	}
	close(h.gate)
	wg.Wait()
	if a.InFlight() != 0 || a.TokensInFlight() != 0 {
		t.Errorf("%d texts, %d tokens in flight after every call ended", a.InFlight(), a.TokensInFlight())
	}
}

// TestTokenBudgetTooLarge: at 10,000 tokens a second and a 15 s budget, a
// call needing more than the time it has and more than the budget is
// ETOOLARGE whatever else is in flight; one needing less than the budget
// is not (its time limit answers it), nor is any call before a rate is
// measured; between chunks, a rest that cannot be done in time is
// ETOOLARGE when the whole call never could, else EOVERLOADED.
func TestTokenBudgetTooLarge(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	b := newTokenBudget(15*time.Second, clock.now)
	if err := b.admit(1_000_000, time.Second); err != nil {
		t.Fatalf("before a rate: %v, want admitted", err)
	}
	clock.add(100 * time.Second)
	b.release(1_000_000, true)
	for _, c := range []struct {
		tokens int64
		left   time.Duration
		want   string
	}{
		{400_000, 30 * time.Second, engine.ETOOLARGE}, // 40 s
		{200_000, 30 * time.Second, ""},               // 20 s
		{100_000, 5 * time.Second, ""},                // 10 s, within the budget
		{100_000, 0, ""},                              // no deadline
	} {
		err := b.admit(c.tokens, c.left)
		if engine.ErrorCode(err) != c.want {
			t.Errorf("%d tokens with %s left: %v, want code %q", c.tokens, c.left, err, c.want)
		}
		if err == nil {
			b.release(c.tokens, false) // no time passed: the rate stays
		}
	}
	if err := b.onTrack(160_000, 200_000, 10*time.Second, 30*time.Second); engine.ErrorCode(err) != engine.EOVERLOADED {
		t.Errorf("a rest of 16 s with 10 s left, the whole call 20 s of 30: %v, want overloaded", err)
	}
	if err := b.onTrack(300_000, 400_000, 25*time.Second, 30*time.Second); engine.ErrorCode(err) != engine.ETOOLARGE {
		t.Errorf("a rest of 30 s with 25 s left, the whole call 40 s of 30: %v, want too_large", err)
	}
	if err := b.onTrack(100_000, 400_000, 25*time.Second, 30*time.Second); err != nil {
		t.Errorf("a rest of 10 s with 25 s left: %v, want on track", err)
	}
}
