package classifier

import (
	"context"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// query is one embedded text: a dense vector, or — when the embedder is a
// models.SparseEmbedder (the lexical one), or wraps one (models.SparseOf) — the same vector as its non-zero
// components, which a sparse index scores without reading the zeros and
// which is only made dense when a vector must be stored (Record).
type query struct {
	dense  []float32
	sparse models.SparseVector // set when dense is nil
}

// embedQuery embeds text with emb, sparsely when emb can, and checks the
// embedder kept its contract.
func embedQuery(ctx context.Context, emb models.Embedder, text string) (query, error) {
	se, ok := models.SparseOf(emb)
	if !ok {
		v, err := embedOne(ctx, emb, text)
		return query{dense: v}, err
	}
	vs, err := se.EmbedSparse(ctx, []string{text})
	if err != nil {
		return query{}, err
	}
	if len(vs) != 1 || !wellFormed(vs[0]) {
		return query{}, engine.Errorf(engine.EINTERNAL, "embedder returned %d sparse vectors for one text, or a malformed one", len(vs))
	}
	return query{sparse: vs[0]}, nil
}

// wellFormed reports whether v has components, one value per index, and
// indices strictly increasing within [0, Dims): what scoring relies on.
func wellFormed(v models.SparseVector) bool {
	if len(v.Indices) == 0 || len(v.Values) != len(v.Indices) {
		return false
	}
	prev := int32(-1)
	for _, j := range v.Indices {
		if j <= prev {
			return false
		}
		prev = j
	}
	return int(prev) < v.Dims
}

// vector returns q as a dense vector (nil when q is empty: nothing embedded).
func (q query) vector() []float32 {
	if q.dense != nil || q.sparse.Dims == 0 {
		return q.dense
	}
	return q.sparse.Dense()
}

// dims is q's length.
func (q query) dims() int {
	if q.dense != nil {
		return len(q.dense)
	}
	return q.sparse.Dims
}

// rowScoresQuery is rowScores for q: sparse columns score a sparse query
// column by column (the same sums as its dense form, see csc.mulSparse); a
// dense matrix takes the dense form. q must have ix.dims dimensions.
func (ix *Index) rowScoresQuery(q query) *[]float32 {
	if q.dense != nil || ix.sp == nil {
		return ix.rowScores(q.vector())
	}
	p := ix.scratch()
	if ix.rows > 0 {
		ix.sp.mulSparse(*p, q.sparse.Indices, q.sparse.Values)
	}
	return p
}

// ruleScoresQuery is RuleScores for a dense or sparse query.
func (ix *Index) ruleScoresQuery(q query, dst []float64) []float64 {
	if q.dense != nil {
		return ix.RuleScores(q.dense, dst)
	}
	dst = growZero(dst, len(ix.ids))
	if q.dims() != ix.dims {
		return dst
	}
	p := ix.rowScoresQuery(q)
	defer ix.pool.Put(p)
	ix.ruleScores(*p, dst)
	return dst
}
