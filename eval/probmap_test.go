package eval

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

// TestFitLogisticRecovers fits data drawn from a known logistic model and
// checks the coefficients come back close.
func TestFitLogisticRecovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	want := []float64{-4, 10, 3}
	var x [][]float64
	var y []float64
	for range 20000 {
		s, m := rng.Float64(), rng.Float64()*0.3
		p := 1 / (1 + math.Exp(-(want[0] + want[1]*s + want[2]*m)))
		v := 0.0
		if rng.Float64() < p {
			v = 1
		}
		x, y = append(x, []float64{1, s, m}), append(y, v)
	}
	got := fitLogistic(x, y)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 0.2*math.Max(1, math.Abs(want[i])) {
			t.Errorf("coefficient %d = %.3f, want about %.1f (all: %v)", i, got[i], want[i], got)
		}
	}
	if w := fitLogistic(nil, nil); len(w) != 2 || w[0] != 0 || w[1] != 0 {
		t.Errorf("no rows: %v, want zero weights", w)
	}
}

// TestFitLogisticSeparable keeps the weights finite on separable data.
func TestFitLogisticSeparable(t *testing.T) {
	x := [][]float64{{1, 0.1}, {1, 0.2}, {1, 0.8}, {1, 0.9}}
	w := fitLogistic(x, []float64{0, 0, 1, 1})
	for _, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("weights %v on separable data: want finite", w)
		}
	}
	m := ProbMap{Method: MapLogistic, Coef: w}
	if lo, hi := m.Predict(Scored{Score: 0.1}), m.Predict(Scored{Score: 0.9}); !(lo < 0.1 && hi > 0.9) {
		t.Errorf("P(0.1) = %.3f, P(0.9) = %.3f: want near 0 and 1", lo, hi)
	}
}

func TestFeaturesMargin(t *testing.T) {
	s := Scored{Score: 0.6, Candidates: []engine.Candidate{{RuleID: "a", Score: 0.6}, {RuleID: "b", Score: 0.45}}}
	if score, margin := features(s); score != 0.6 || math.Abs(margin-0.15) > 1e-12 {
		t.Errorf("features = %v, %v; want 0.6, 0.15", score, margin)
	}
	if _, margin := features(Scored{Score: 0.3}); margin != 0.3 {
		t.Errorf("margin without a runner-up = %v, want the score", margin)
	}
}

// TestChooseProbMap scores every candidate method and returns the one with
// the lowest cross-validated ECE, fitted on all items.
func TestChooseProbMap(t *testing.T) {
	items := append(synthetic(""), synthetic("")...)
	m, choices := chooseProbMap(items)
	if len(choices) != len(mapMethods) {
		t.Fatalf("choices %+v: want one per method", choices)
	}
	best := choices[0]
	for _, c := range choices {
		if c.ECE < best.ECE-1e-12 {
			best = c
		}
		if c.ECE < 0 || c.ECE > 1 {
			t.Errorf("%s: ECE %v out of [0, 1]", c.Method, c.ECE)
		}
	}
	if m.Method != best.Method {
		t.Errorf("chose %s, want %s (choices %+v)", m.Method, best.Method, choices)
	}
	for _, s := range mapItems(items) {
		if p := m.Predict(s); p < 0 || p > 1 || math.IsNaN(p) {
			t.Errorf("P(%v) = %v", s.Score, p)
		}
	}
}

// TestAutoMargin: on the synthetic items the threshold chosen on each
// training part already keeps its precision on the held-out fold, so no
// margin is added; a target no threshold reaches gives MaxAutoMargin.
func TestAutoMargin(t *testing.T) {
	items := append(synthetic(""), synthetic("")...)
	if m, p := autoMargin(items, 0.95, true); m != 0 || p < 0.95 {
		t.Errorf("autoMargin = %.2f (precision %.3f), want 0 and ≥ 0.95", m, p)
	}
	bad := append(items, item("z1", KindNew, nil, "r.a", 1.0), item("z2", KindNew, nil, "r.a", 1.0))
	if m, _ := autoMargin(bad, 0.99, false); math.Abs(m-MaxAutoMargin) > 1e-12 {
		t.Errorf("unreachable target: margin %.2f, want %.2f", m, MaxAutoMargin)
	}
}
