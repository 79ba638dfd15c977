package eval

import (
	"cmp"
	"math"
	"slices"
)

// Block is one step of an isotonic mapping: scores in [Lo, Hi] map to P,
// the observed rate of correct top-1 predictions among the N training scores
// pooled into the block.
type Block struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	P  float64 `json:"p"`
	N  int     `json:"n"`
}

// Mapping is a non-decreasing score → P(correct) step function fitted by
// FitIsotonic. Between two blocks it interpolates linearly; below the first
// and above the last it is constant.
type Mapping []Block

// FitIsotonic fits the non-decreasing function of x closest to y in squared
// error (y is 0 or 1 here: was the top rule acceptable), with the
// pool-adjacent-violators algorithm. Equal x values are pooled first, so they
// always map to one value. Pairs with a NaN are ignored; no pairs give nil.
func FitIsotonic(x, y []float64) Mapping {
	type pt struct{ x, y float64 }
	pts := make([]pt, 0, len(x))
	for i := range min(len(x), len(y)) {
		if !math.IsNaN(x[i]) && !math.IsNaN(y[i]) {
			pts = append(pts, pt{x[i], y[i]})
		}
	}
	slices.SortFunc(pts, func(a, b pt) int { return cmp.Compare(a.x, b.x) })
	type acc struct {
		lo, hi, sum float64
		n           int
	}
	var st []acc
	for i := 0; i < len(pts); {
		j := i
		b := acc{lo: pts[i].x, hi: pts[i].x}
		for j < len(pts) && pts[j].x == pts[i].x {
			b.sum += pts[j].y
			b.n++
			j++
		}
		i = j
		st = append(st, b)
		// Pool while the previous block's mean is not below this one's.
		for len(st) > 1 {
			p, c := st[len(st)-2], st[len(st)-1]
			if p.sum*float64(c.n) < c.sum*float64(p.n) {
				break
			}
			st = st[:len(st)-2]
			st = append(st, acc{lo: p.lo, hi: c.hi, sum: p.sum + c.sum, n: p.n + c.n})
		}
	}
	m := make(Mapping, len(st))
	for i, b := range st {
		m[i] = Block{Lo: b.lo, Hi: b.hi, P: b.sum / float64(b.n), N: b.n}
	}
	return m
}

// Predict returns the mapped probability of score x (0 for an empty mapping).
func (m Mapping) Predict(x float64) float64 {
	if len(m) == 0 {
		return 0
	}
	i, _ := slices.BinarySearchFunc(m, x, func(b Block, x float64) int { return cmp.Compare(b.Hi, x) })
	switch {
	case i == len(m):
		return m[len(m)-1].P
	case x >= m[i].Lo || i == 0:
		return m[i].P
	}
	prev := m[i-1]
	f := (x - prev.Hi) / (m[i].Lo - prev.Hi)
	return prev.P + f*(m[i].P-prev.P)
}

// ReliabilityBin is one bin of a reliability diagram.
type ReliabilityBin struct {
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi"`
	N         int     `json:"n"`
	Predicted float64 `json:"predicted"` // mean predicted probability
	Observed  float64 `json:"observed"`  // rate of correct predictions
}

// ECEBins is the number of equal-width bins ECE uses.
const ECEBins = 10

// ECE is the expected calibration error of probabilities p against outcomes y
// (0 or 1) over ECEBins equal-width bins of p: the N-weighted mean of
// |observed rate − mean p| per bin. It returns the bins too (empty ones
// included); no pairs give 0.
func ECE(p, y []float64) (float64, []ReliabilityBin) {
	bins := make([]ReliabilityBin, ECEBins)
	sumP, sumY := make([]float64, ECEBins), make([]float64, ECEBins)
	n := min(len(p), len(y))
	for i := range n {
		b := min(max(int(p[i]*ECEBins), 0), ECEBins-1)
		bins[b].N++
		sumP[b] += p[i]
		sumY[b] += y[i]
	}
	var e float64
	for b := range bins {
		bins[b].Lo, bins[b].Hi = float64(b)/ECEBins, float64(b+1)/ECEBins
		if bins[b].N == 0 {
			continue
		}
		bins[b].Predicted = sumP[b] / float64(bins[b].N)
		bins[b].Observed = sumY[b] / float64(bins[b].N)
		e += float64(bins[b].N) / float64(n) * math.Abs(bins[b].Observed-bins[b].Predicted)
	}
	return e, bins
}
