package server

import (
	"context"
	"errors"
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
// a Retry-After of when the work ahead should be done). /v1/embeddings,
// classify and corrections share it.
type admission struct {
	inner    models.Embedder
	limit    int64
	inflight *atomic.Int64 // texts; shared by every admission made with over
	tokens   *tokenBudget  // shared likewise
	count    func(texts []string) int64
}

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

// tokenCount returns how the tokens of texts are counted for inner: its
// model's tokenizer when it has one (models.TokenCounter: the count after
// truncation at the model's maximum length), else an estimate of one token
// per four bytes (engine.EstimateTokens), as the lexical embedder reports
// its usage.
func tokenCount(inner models.Embedder) func([]string) int64 {
	estimate := func(texts []string) int64 {
		var n int64
		for _, t := range texts {
			n += int64(engine.EstimateTokens(t))
		}
		return n
	}
	tc, ok := models.As[models.TokenCounter](inner)
	if !ok {
		return estimate
	}
	return func(texts []string) int64 {
		counts, err := tc.CountTokens(texts)
		if err != nil {
			return estimate(texts)
		}
		var n int64
		for _, c := range counts {
			n += int64(c)
		}
		return n
	}
}

// Embed implements models.Embedder. Errors: EOVERLOADED past a bound (an
// *overloadedError carrying the Retry-After), else the wrapped embedder's.
func (a *admission) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	n := int64(len(texts))
	for {
		cur := a.inflight.Load()
		if cur+n > a.limit {
			return nil, &overloadedError{engine.Errorf(engine.EOVERLOADED, "the server is embedding %d texts already (at most %d at once): retry later", cur, a.limit), time.Second}
		}
		if a.inflight.CompareAndSwap(cur, cur+n) {
			break
		}
	}
	defer a.inflight.Add(-n)
	tokens, ok := countedTokens(ctx, len(texts))
	if !ok {
		tokens = a.count(texts)
	}
	if err := a.tokens.admit(tokens); err != nil {
		return nil, err
	}
	vecs, err := a.inner.Embed(ctx, texts)
	a.tokens.release(tokens, err == nil)
	return vecs, err
}

// tokensKey is the context key of the tokens a caller already counted.
type tokensKey struct{}

type tokenTally struct {
	texts  int
	tokens int64
}

// withTokenCount returns ctx telling the admission that the n texts of the
// next Embed call hold tokens tokens (counted as tokenCount counts them), so
// they are not counted twice.
func withTokenCount(ctx context.Context, n int, tokens int64) context.Context {
	return context.WithValue(ctx, tokensKey{}, tokenTally{texts: n, tokens: tokens})
}

// countedTokens returns the tokens withTokenCount put in ctx for a call of
// n texts.
func countedTokens(ctx context.Context, n int) (int64, bool) {
	t, ok := ctx.Value(tokensKey{}).(tokenTally)
	if !ok || t.texts != n {
		return 0, false
	}
	return t.tokens, true
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
