package server

import (
	"context"
	"sync/atomic"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// DefaultMaxTextsInFlight bounds the texts the server embeds at once (two
// /v1/embeddings requests of the largest size, or thousands of classify and
// correction requests).
const DefaultMaxTextsInFlight = 2 * MaxEmbeddingInputs

// admission is the one bound on embedding work: every Embed call, whatever
// its size and whether it goes through the Batcher's queue or (past
// MaxBatch texts) straight to the model, is admitted only while the texts
// in flight, its own included, stay within limit; past it the call fails at
// once with EOVERLOADED (HTTP 429 with Retry-After). /v1/embeddings,
// classify and corrections share it, so a flood of large embedding requests
// cannot hold the model's memory for all of them at once.
type admission struct {
	inner    models.Embedder
	limit    int64
	inflight *atomic.Int64 // shared by every admission made with over
}

func newAdmission(inner models.Embedder, limit int) *admission {
	return &admission{inner: inner, limit: int64(limit), inflight: new(atomic.Int64)}
}

// over returns an admission of inner under the same bound as a: the texts
// in flight through both count together.
func (a *admission) over(inner models.Embedder) *admission {
	return &admission{inner: inner, limit: a.limit, inflight: a.inflight}
}

// Embed implements models.Embedder. Errors: EOVERLOADED past the bound, else
// the wrapped embedder's.
func (a *admission) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	n := int64(len(texts))
	for {
		cur := a.inflight.Load()
		if cur+n > a.limit {
			return nil, engine.Errorf(engine.EOVERLOADED, "the server is embedding %d texts already (at most %d at once): retry later", cur, a.limit)
		}
		if a.inflight.CompareAndSwap(cur, cur+n) {
			break
		}
	}
	defer a.inflight.Add(-n)
	return a.inner.Embed(ctx, texts)
}

// InFlight is the number of texts being embedded now.
func (a *admission) InFlight() int64 { return a.inflight.Load() }

// Identity, Backend, Close and Unwrap forward to the wrapped embedder (Close
// is a no-op: the server never closes the embedder it was given).
func (a *admission) Identity() models.Identity { return a.inner.Identity() }
func (a *admission) Backend() string           { return a.inner.Backend() }
func (a *admission) Close() error              { return nil }
func (a *admission) Unwrap() models.Embedder   { return a.inner }
