package classifier

import (
	"math"
	"slices"
	"sync"

	"github.com/viterin/vek/vek32"

	"github.com/lexsona/lexsona/engine"
)

// Row is one stored embedding: a vector of a rule's template or example.
type Row struct {
	RuleID string
	Vector []float32
}

// Index holds the embeddings of one model in a single contiguous row-major
// float32 matrix, rows grouped by rule, so that scoring a query is one pass of
// SIMD dot products (vek) over memory read in order. Vectors are
// L2-normalised, so a dot product is the cosine similarity.
//
// Sparse embeddings (the lexical embedder's 4096 hashed buckets, of which a
// text fills a few percent) are kept instead in compressed sparse columns:
// scoring then touches only the columns the query uses, which is tens of
// times less work and memory than the dense pass (see BenchmarkIndexKernels);
// a query given sparse (the lexical embedder's EmbedSparse, see query.go)
// goes straight to those columns without reading its zeros.
// An Index is immutable and safe for concurrent use.
type Index struct {
	dims   int
	rows   int
	mat    []float32 // rows × dims, nil when sparse
	sp     *csc      // non-nil when the rows are sparse
	starts []int32   // rule i owns rows [starts[i], starts[i+1])
	ids    []string  // rule i's id, in the order given to NewIndex
	pos    map[string]int
	scopes []engine.Scope // rule i's scope (normalised), zero when unknown
	pool   sync.Pool      // *[]float32 scratch of len rows
}

// sparseDensity is the fraction of non-zero values under which an index is
// stored sparse.
const sparseDensity = 0.125

// NewIndex builds an index of dims-dimensional rows. Rules are kept in the
// order of ids, then any rule of rows not in ids in order of first
// appearance; a rule in ids without rows scores 0. Vectors of another length,
// with NaN or Inf, or of zero norm are skipped (they cannot be compared), and
// vectors whose norm is off by more than 1e-3 are re-normalised. scopes gives
// each rule's scope for the scope filter of Search; a missing rule matches
// every request.
func NewIndex(dims int, ids []string, rows []Row, scopes map[string]engine.Scope) *Index {
	ix := &Index{dims: max(dims, 0), pos: make(map[string]int, len(ids))}
	add := func(id string) int {
		if i, ok := ix.pos[id]; ok {
			return i
		}
		ix.pos[id] = len(ix.ids)
		ix.ids = append(ix.ids, id)
		return len(ix.ids) - 1
	}
	for _, id := range ids {
		add(id)
	}
	byRule := make([][]int, 0, len(ids))
	for r, row := range rows {
		if dims <= 0 || engine.CheckVector(row.Vector, dims) != nil {
			continue
		}
		i := add(row.RuleID)
		for len(byRule) <= i {
			byRule = append(byRule, nil)
		}
		byRule[i] = append(byRule[i], r)
	}
	ix.mat = make([]float32, 0, len(rows)*ix.dims)
	ix.starts = make([]int32, 0, len(ix.ids)+1)
	ix.scopes = make([]engine.Scope, len(ix.ids))
	for i, id := range ix.ids {
		ix.starts = append(ix.starts, int32(ix.rows))
		ix.scopes[i] = scopes[id]
		if i >= len(byRule) {
			continue
		}
		for _, r := range byRule[i] {
			v := rows[r].Vector
			n := vek32.Norm(v)
			if n == 0 {
				continue
			}
			start := len(ix.mat)
			ix.mat = append(ix.mat, v...)
			if math.Abs(float64(n)-1) > 1e-3 {
				vek32.DivNumber_Inplace(ix.mat[start:], n)
			}
			ix.rows++
		}
	}
	ix.starts = append(ix.starts, int32(ix.rows))
	if len(ix.mat) > 0 && float64(countNonZero(ix.mat)) < sparseDensity*float64(len(ix.mat)) {
		ix.sp = newCSC(ix.mat, ix.rows, ix.dims)
		ix.mat = nil
	}
	return ix
}

// Dims is the vector length; Rows the number of stored vectors; Rules the
// number of rules; Sparse whether the rows are kept as sparse columns.
func (ix *Index) Dims() int    { return ix.dims }
func (ix *Index) Rows() int    { return ix.rows }
func (ix *Index) Rules() int   { return len(ix.ids) }
func (ix *Index) Sparse() bool { return ix.sp != nil }

// hasRows reports whether rule i (in index order) has a stored vector.
func (ix *Index) hasRows(i int) bool { return i < len(ix.ids) && ix.starts[i] < ix.starts[i+1] }

// RuleIDs returns the rules in index order (the order of RuleScores).
func (ix *Index) RuleIDs() []string { return slices.Clone(ix.ids) }

// denseKernel computes every row's dot product with q into dst. Both of vek's
// ways are kept so BenchmarkIndexKernels can compare them: one vek32.Dot per
// row, or one vek32.MatMul_Into (matrix × vector, split across cores by vek
// for large matrices).
var denseKernel = kernelMatMul

const (
	kernelDot = iota
	kernelMatMul
)

// rowScores returns the dot product of q with every row, in a scratch buffer
// the caller must give back with ix.pool.Put.
func (ix *Index) rowScores(q []float32) *[]float32 {
	p := ix.scratch()
	s := *p
	switch {
	case ix.rows == 0:
	case ix.sp != nil:
		ix.sp.mulVec(s, q)
	case denseKernel == kernelMatMul:
		vek32.MatMul_Into(s, ix.mat, q, ix.dims)
	default:
		d := ix.dims
		for r := range s {
			s[r] = vek32.Dot(ix.mat[r*d:(r+1)*d], q)
		}
	}
	return p
}

// scratch returns a pooled buffer of len rows; give it back with ix.pool.Put.
func (ix *Index) scratch() *[]float32 {
	p, _ := ix.pool.Get().(*[]float32)
	if p == nil || cap(*p) < ix.rows {
		s := make([]float32, ix.rows)
		p = &s
	}
	*p = (*p)[:ix.rows]
	return p
}

// Search returns the k best rules scoring strictly above floor, best first
// (ties by rule id), among the rules whose scope can apply to req (see
// ScopeApplies). A rule's score is the best over its rows. A query of the
// wrong length finds nothing.
func (ix *Index) Search(q []float32, k int, floor float64, req engine.Scope) []engine.Candidate {
	if len(q) != ix.dims || k <= 0 {
		return newTopK(k).sorted()
	}
	p := ix.rowScores(q)
	defer ix.pool.Put(p)
	return ix.search(*p, k, floor, req)
}

// search is Search over the row scores rs.
func (ix *Index) search(rs []float32, k int, floor float64, req engine.Scope) []engine.Candidate {
	h := newTopK(k)
	cut := float32(floor - 1e-6) // rows at or below cannot round above floor
	for i := range ix.ids {
		a, b := ix.starts[i], ix.starts[i+1]
		if a == b {
			continue
		}
		best := rs[a]
		for _, v := range rs[a+1 : b] {
			best = max(best, v)
		}
		if best <= cut || RoundScore(float64(best)) <= floor || !ScopeApplies(ix.scopes[i], req) {
			continue
		}
		h.push(ix.ids[i], float64(best))
	}
	return h.sorted()
}

// RuleScores writes each rule's score — the best over its rows, 0 for a rule
// without rows — into dst (grown as needed) in RuleIDs order and returns it.
// A query of the wrong length scores 0 everywhere.
func (ix *Index) RuleScores(q []float32, dst []float64) []float64 {
	dst = growZero(dst, len(ix.ids))
	if len(q) != ix.dims {
		return dst
	}
	p := ix.rowScores(q)
	defer ix.pool.Put(p)
	ix.ruleScores(*p, dst)
	return dst
}

// ruleScores is RuleScores over the row scores rs, into dst of len Rules().
func (ix *Index) ruleScores(rs []float32, dst []float64) {
	for i := range ix.ids {
		a, b := ix.starts[i], ix.starts[i+1]
		if a == b {
			continue
		}
		best := rs[a]
		for _, v := range rs[a+1 : b] {
			best = max(best, v)
		}
		dst[i] = float64(best)
	}
}

// growZero returns dst grown to n values, all zero.
func growZero(dst []float64, n int) []float64 {
	dst = slices.Grow(dst[:0], n)[:n]
	clear(dst)
	return dst
}
