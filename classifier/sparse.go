package classifier

import "math"

// csc is a rows × dims matrix in compressed sparse columns: column j's
// non-zero values are val[start[j]:start[j+1]], in rows row[...]. Scoring a
// query touches only the columns where the query is non-zero.
type csc struct {
	start []int32
	row   []int32
	val   []float32
}

func countNonZero(v []float32) int {
	n := 0
	for _, x := range v {
		if x != 0 {
			n++
		}
	}
	return n
}

// newCSC compresses the row-major matrix mat.
func newCSC(mat []float32, rows, dims int) *csc {
	m := &csc{start: make([]int32, dims+1)}
	for r := range rows {
		for j, x := range mat[r*dims : (r+1)*dims] {
			if x != 0 {
				m.start[j+1]++
			}
		}
	}
	for j := range dims {
		m.start[j+1] += m.start[j]
	}
	nnz := m.start[dims]
	m.row, m.val = make([]int32, nnz), make([]float32, nnz)
	next := make([]int32, dims)
	copy(next, m.start[:dims])
	for r := range rows { // rows in order, so each column's rows are sorted
		for j, x := range mat[r*dims : (r+1)*dims] {
			if x != 0 {
				p := next[j]
				m.row[p], m.val[p] = int32(r), x
				next[j]++
			}
		}
	}
	return m
}

// mulVec sets dst[r] to row r · q, adding the columns in increasing order.
func (m *csc) mulVec(dst, q []float32) {
	clear(dst)
	start, row, val := m.start, m.row, m.val
	for j, x := range q[:len(start)-1] {
		if math.Float32bits(x)&^(1<<31) == 0 { // ±0: one integer test, not two float branches
			continue
		}
		a, b := start[j], start[j+1]
		addScaled(dst, row[a:b], val[a:b], x)
	}
}

// mulSparse sets dst[r] to row r · q for a query given by its non-zero
// components (idx increasing, all below the matrix's dims). It adds the same
// products in the same order as mulVec on q's dense form, so the scores are
// identical bit for bit, without reading q's zeros.
func (m *csc) mulSparse(dst []float32, idx []int32, val []float32) {
	clear(dst)
	start, row, v := m.start, m.row, m.val
	for i, j := range idx {
		a, b := start[j], start[j+1]
		addScaled(dst, row[a:b], v[a:b], val[i])
	}
}

// addScaled adds x times one column (its rows and values) to dst.
func addScaled(dst []float32, rows []int32, vals []float32, x float32) {
	vals = vals[:len(rows)]
	for p, r := range rows {
		dst[r] += x * vals[p]
	}
}
