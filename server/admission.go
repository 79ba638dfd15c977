package server

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// DefaultMaxTextsInFlight bounds the texts the server embeds at once (two
// /v1/embeddings requests of the largest size, or thousands of classify and
// correction requests).
const DefaultMaxTextsInFlight = 2 * MaxEmbeddingInputs

// admission is the one bound on embedding work: every Embed call, whatever
// its size and whether it goes through the Batcher's queue or (past
// MaxBatch texts) straight to the model, is admitted only while
//   - the texts in flight, its own included, stay within limit (the memory
//     the model's inputs hold), and
//   - the tokens in flight, its own included, are work the model gets
//     through within the time budget at the rate it is measured to embed
//     (see tokenBudget), so that what is admitted finishes before its
//     request's time limit instead of every request timing out together;
//
// past either bound the call fails at once with EOVERLOADED (HTTP 429 with
// a Retry-After of when the work ahead should be done). A call the model
// cannot embed within its deadline even alone, and that takes it longer
// than the budget, fails at once with ETOOLARGE (413); one of more than
// chunkTokens is embedded a chunk at a time, so
// that the rate is measured as it goes (a first large call on a new server
// included) and the call stops as soon as the rest cannot be done in the
// time it has. /v1/embeddings, classify and corrections share it.
type admission struct {
	inner    models.Embedder
	limit    int64
	inflight *atomic.Int64 // texts; shared by every admission made with over
	tokens   *tokenBudget  // shared likewise
	count    func(texts []string) []int64
}

// chunkTokens is the most tokens of one call sent to the model at once.
const chunkTokens = minTokenWindow

// newAdmission admits calls to inner under limit texts and tokens of work
// the model gets through within budget (see tokenBudget).
func newAdmission(inner models.Embedder, limit int, budget time.Duration, now func() time.Time) *admission {
	return &admission{inner: inner, limit: int64(limit), inflight: new(atomic.Int64),
		tokens: newTokenBudget(budget, now), count: tokenCount(inner)}
}

// over returns an admission of inner under the same bounds as a: the texts
// and tokens in flight through both count together.
func (a *admission) over(inner models.Embedder) *admission {
	return &admission{inner: inner, limit: a.limit, inflight: a.inflight, tokens: a.tokens, count: tokenCount(inner)}
}

// tokenCount returns how the tokens of each text are counted for inner:
// its model's tokenizer when it has one (models.TokenCounter: the count
// after truncation at the model's maximum length), else an estimate of one
// token per four bytes (engine.EstimateTokens), as the lexical embedder
// reports its usage.
func tokenCount(inner models.Embedder) func([]string) []int64 {
	estimate := func(texts []string) []int64 {
		out := make([]int64, len(texts))
		for i, t := range texts {
			out[i] = int64(engine.EstimateTokens(t))
		}
		return out
	}
	tc, ok := models.As[models.TokenCounter](inner)
	if !ok {
		return estimate
	}
	return func(texts []string) []int64 {
		counts, err := tc.CountTokens(texts)
		if err != nil || len(counts) != len(texts) {
			return estimate(texts)
		}
		out := make([]int64, len(counts))
		for i, c := range counts {
			out[i] = int64(c)
		}
		return out
	}
}

// Embed implements models.Embedder. Errors: EOVERLOADED past a bound (an
// *overloadedError carrying the Retry-After), ETOOLARGE for a call that
// cannot be done in time, else the wrapped embedder's.
func (a *admission) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	n := int64(len(texts))
	for {
		cur := a.inflight.Load()
		if cur+n > a.limit {
			// A call's texts leave together when it is done: retry once the
			// work in flight should be.
			return nil, &overloadedError{engine.Errorf(engine.EOVERLOADED, "the server is embedding %d texts already (at most %d at once): retry later", cur, a.limit), a.tokens.drain()}
		}
		if a.inflight.CompareAndSwap(cur, cur+n) {
			break
		}
	}
	defer a.inflight.Add(-n)
	counts, ok := countedTokens(ctx, len(texts))
	if !ok {
		counts = a.count(texts)
	}
	var total int64
	for _, c := range counts {
		total += c
	}
	start := a.tokens.now()
	var limit time.Duration // the time the call has; 0: no deadline
	if d, ok := ctx.Deadline(); ok {
		if limit = d.Sub(start); limit <= 0 {
			return nil, context.DeadlineExceeded
		}
	}
	if err := a.tokens.admit(total, limit); err != nil {
		return nil, err
	}
	if total <= chunkTokens {
		vecs, err := a.inner.Embed(ctx, texts)
		a.tokens.release(total, err == nil)
		return a.queueFull(vecs, err)
	}
	return a.embedChunks(ctx, texts, counts, total, start, limit)
}

// embedChunks embeds texts in order, chunkTokens (at least one text) at a
// time, the tokens of each chunk released as done so that the rate follows
// the call; before each chunk after the first it checks that the rest can
// be done before the deadline (tokenBudget.onTrack; limit 0: no deadline).
func (a *admission) embedChunks(ctx context.Context, texts []string, counts []int64, total int64, start time.Time, limit time.Duration) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	rest := total
	for i := 0; i < len(texts); {
		j, sum := i+1, counts[i]
		for j < len(texts) && sum+counts[j] <= chunkTokens {
			sum += counts[j]
			j++
		}
		if i > 0 && limit > 0 {
			if err := a.tokens.onTrack(rest, total, limit-a.tokens.now().Sub(start), limit); err != nil {
				a.tokens.release(rest, false)
				return nil, err
			}
		}
		vecs, err := a.inner.Embed(ctx, texts[i:j])
		if err == nil && len(vecs) != j-i {
			err = engine.Errorf(engine.EINTERNAL, "embedder returned %d vectors for %d texts", len(vecs), j-i)
		}
		if err != nil {
			a.tokens.release(rest, false)
			if i > 0 {
				err = fmt.Errorf("texts %d to %d of the call: %w", i, j-1, err)
			}
			return a.queueFull(nil, err)
		}
		a.tokens.release(sum, true)
		rest -= sum
		out = append(out, vecs...)
		i = j
	}
	return out, nil
}

// queueFull gives the Batcher's EOVERLOADED (its queue full) the
// Retry-After of the work in flight.
func (a *admission) queueFull(vecs [][]float32, err error) ([][]float32, error) {
	var oe *overloadedError
	if engine.ErrorCode(err) == engine.EOVERLOADED && !errors.As(err, &oe) {
		return nil, &overloadedError{err, a.tokens.drain()}
	}
	return vecs, err
}

// tokensKey is the context key of the tokens a caller already counted.
type tokensKey struct{}

// withTokenCount returns ctx telling the admission that the texts of the
// next Embed call hold counts tokens each (counted as tokenCount counts
// them), so they are not counted twice.
func withTokenCount(ctx context.Context, counts []int64) context.Context {
	return context.WithValue(ctx, tokensKey{}, counts)
}

// countedTokens returns the counts withTokenCount put in ctx for a call of
// n texts.
func countedTokens(ctx context.Context, n int) ([]int64, bool) {
	c, ok := ctx.Value(tokensKey{}).([]int64)
	if !ok || len(c) != n {
		return nil, false
	}
	return c, true
}

// InFlight is the number of texts being embedded now.
func (a *admission) InFlight() int64 { return a.inflight.Load() }

// TokensInFlight is the number of tokens being embedded now.
func (a *admission) TokensInFlight() int64 { return a.tokens.inFlight() }

// Identity, Backend, Close and Unwrap forward to the wrapped embedder (Close
// is a no-op: the server never closes the embedder it was given).
func (a *admission) Identity() models.Identity { return a.inner.Identity() }
func (a *admission) Backend() string           { return a.inner.Backend() }
func (a *admission) Close() error              { return nil }
func (a *admission) Unwrap() models.Embedder   { return a.inner }

// overloadedError is an EOVERLOADED refusal with how long the caller should
// wait before trying again (the Retry-After of its 429).
type overloadedError struct {
	err        error
	retryAfter time.Duration
}

func (e *overloadedError) Error() string { return e.err.Error() }
func (e *overloadedError) Unwrap() error { return e.err }

// retryAfterOf is the Retry-After, in whole seconds (at least 1), of an
// EOVERLOADED error: the one it carries, else retryAfterSeconds.
func retryAfterOf(err error) int {
	var oe *overloadedError
	if errors.As(err, &oe) {
		if s := int((oe.retryAfter + time.Second - 1) / time.Second); s > 1 {
			return s
		}
		return 1
	}
	return retryAfterSeconds
}
