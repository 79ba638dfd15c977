package eval

import (
	"math"
	"slices"
)

// This file holds the score → P(correct) mappings Calibrate chooses among,
// and the choice: the one with the lowest expected calibration error by
// k-fold cross-validation inside the data it is fitted on (the dev split),
// so the held-out items never take part in it.

// Mapping methods (ProbMap.Method).
const (
	MapIsotonic       = "isotonic"
	MapLogistic       = "logistic(score)"
	MapLogisticMargin = "logistic(score, margin)"
)

// mapMethods are the candidates, in the order a tie is resolved (the
// simplest smooth map first, then the step function).
var mapMethods = []string{MapLogistic, MapLogisticMargin, MapIsotonic}

// ProbMap maps an item's top score (and its margin over the runner-up) to
// the probability that the top rule is acceptable: an isotonic step function
// or a logistic regression (Platt scaling) on the score, or on the score and
// the margin.
type ProbMap struct {
	Method   string    `json:"method"`
	Isotonic Mapping   `json:"isotonic,omitempty"`
	Coef     []float64 `json:"coef,omitempty"` // logistic: intercept, score[, margin]
}

// MapChoice is one candidate mapping's cross-validated ECE.
type MapChoice struct {
	Method string  `json:"method"`
	ECE    float64 `json:"ece"`
}

// features are the inputs of a mapping for one item: its top score and the
// margin of the top score over the second best (the score itself when
// there is no second).
func features(s Scored) (score, margin float64) {
	margin = s.Score
	if len(s.Candidates) > 1 {
		margin = s.Candidates[0].Score - s.Candidates[1].Score
	}
	return s.Score, margin
}

// Predict is the mapped probability of s.
func (m ProbMap) Predict(s Scored) float64 {
	score, margin := features(s)
	switch m.Method {
	case MapIsotonic:
		return m.Isotonic.Predict(score)
	case MapLogistic, MapLogisticMargin:
		z := m.Coef[0] + m.Coef[1]*score
		if len(m.Coef) > 2 {
			z += m.Coef[2] * margin
		}
		return 1 / (1 + math.Exp(-z))
	}
	return 0
}

// mapItems returns the items a mapping is fitted and judged on: those of the
// paper's kinds with a top rule (a contradiction's right outcome is about
// polarity, not the rule alone).
func mapItems(items []Scored) []Scored {
	var out []Scored
	for _, s := range items {
		if s.Top != "" && s.Kind != KindContradiction {
			out = append(out, s)
		}
	}
	return out
}

// fitProbMap fits a mapping of the given method on items.
func fitProbMap(method string, items []Scored) ProbMap {
	items = mapItems(items)
	m := ProbMap{Method: method}
	x, y := make([][]float64, len(items)), make([]float64, len(items))
	for i, s := range items {
		score, margin := features(s)
		x[i] = []float64{1, score}
		if method == MapLogisticMargin {
			x[i] = append(x[i], margin)
		}
		y[i] = outcome(s)
	}
	switch method {
	case MapIsotonic:
		m.Isotonic = fitMapping(items)
	default:
		m.Coef = fitLogistic(x, y)
	}
	return m
}

// chooseProbMap picks, among mapMethods, the mapping with the lowest ECE by
// Folds-fold cross-validation on items (stratified by kind), and returns it
// fitted on all items with every candidate's cross-validated ECE.
func chooseProbMap(items []Scored) (ProbMap, []MapChoice) {
	items = mapItems(items)
	folds := foldsOf(items)
	var choices []MapChoice
	best := 0
	for mi, method := range mapMethods {
		var p, y []float64
		for f := range Folds {
			train, held := splitFold(items, folds, f)
			m := fitProbMap(method, train)
			for _, s := range held {
				p, y = append(p, m.Predict(s)), append(y, outcome(s))
			}
		}
		e, _ := ECE(p, y)
		choices = append(choices, MapChoice{Method: method, ECE: e})
		if e < choices[best].ECE-1e-12 {
			best = mi
		}
	}
	return fitProbMap(mapMethods[best], items), choices
}

// applyProbMap maps the items of the paper's kinds with a top rule through
// m, returning the probabilities, the outcomes and the raw scores clamped
// to [0, 1].
func applyProbMap(m ProbMap, items []Scored) (p, y, raw []float64) {
	for _, s := range mapItems(items) {
		p, y, raw = append(p, m.Predict(s)), append(y, outcome(s)), append(raw, min(max(s.Score, 0), 1))
	}
	return p, y, raw
}

// logisticL2 is the ridge penalty on the slopes of fitLogistic: it keeps
// the fit finite when the classes are separable, and is too small to matter
// otherwise.
const logisticL2 = 1e-6

// fitLogistic fits P(y=1|x) = σ(w·x) by Newton's method (iteratively
// reweighted least squares) on rows x whose first column is the constant 1;
// the slopes carry a logisticL2 ridge penalty. No rows give zero weights.
func fitLogistic(x [][]float64, y []float64) []float64 { return fitLogisticL2(x, y, logisticL2) }

// fitLogisticL2 is fitLogistic with ridge penalty l2 (per row) on the
// slopes.
func fitLogisticL2(x [][]float64, y []float64, l2 float64) []float64 {
	if len(x) == 0 {
		return []float64{0, 0}
	}
	d := len(x[0])
	w := make([]float64, d)
	for range 50 {
		g := make([]float64, d)
		h := make([][]float64, d)
		for j := range h {
			h[j] = make([]float64, d)
		}
		for i, row := range x {
			z := 0.0
			for j := range d {
				z += w[j] * row[j]
			}
			p := 1 / (1 + math.Exp(-z))
			for j := range d {
				g[j] += (p - y[i]) * row[j]
				for k := range d {
					h[j][k] += p * (1 - p) * row[j] * row[k]
				}
			}
		}
		for j := 1; j < d; j++ {
			g[j] += l2 * float64(len(x)) * w[j]
			h[j][j] += l2 * float64(len(x))
		}
		h[0][0] += 1e-9
		step := solve(h, g)
		if step == nil {
			break
		}
		size := 0.0
		for j := range d {
			w[j] -= step[j]
			size = max(size, math.Abs(step[j]))
		}
		if size < 1e-9 {
			break
		}
	}
	return w
}

// solve solves a·s = b by Gaussian elimination with partial pivoting; nil
// when a is singular. a and b are left unchanged.
func solve(a [][]float64, b []float64) []float64 {
	n := len(b)
	m := make([][]float64, n)
	for i := range a {
		m[i] = append(slices.Clone(a[i]), b[i])
	}
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if math.Abs(m[p][c]) < 1e-15 {
			return nil
		}
		m[c], m[p] = m[p], m[c]
		for r := c + 1; r < n; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k <= n; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	s := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		v := m[i][n]
		for k := i + 1; k < n; k++ {
			v -= m[i][k] * s[k]
		}
		s[i] = v / m[i][i]
	}
	return s
}
