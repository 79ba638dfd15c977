package classifier

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

// mulVec sets dst[r] to row r · q.
func (m *csc) mulVec(dst, q []float32) {
	clear(dst)
	for j, x := range q[:len(m.start)-1] {
		if x == 0 {
			continue
		}
		a, b := m.start[j], m.start[j+1]
		rows, vals := m.row[a:b], m.val[a:b]
		for p, r := range rows {
			dst[r] += x * vals[p]
		}
	}
}
