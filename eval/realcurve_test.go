package eval

import (
	"math"
	"testing"
)

func TestRealCurveRankFigures(t *testing.T) {
	neg := make([]float64, 100)
	for i := range neg {
		neg[i] = float64(i) / 100 // 0 … 0.99: 3% of them are ≥ 0.97
	}
	auc, recall := rankFigures(neg, []float64{0.5, 0.98, 1})
	if want := (50.5 + 98.5 + 100) / 300; math.Abs(auc-want) > 1e-9 {
		t.Errorf("AUC %v, want %v", auc, want)
	}
	if math.Abs(recall-2.0/3) > 1e-9 {
		t.Errorf("recall %v, want 2/3", recall)
	}
	if a, r := rankFigures(nil, []float64{1}); !math.IsNaN(a) || !math.IsNaN(r) {
		t.Errorf("no negatives: %v %v, want NaN", a, r)
	}
}

func TestRealCurveLogFit(t *testing.T) {
	x := []float64{5, 10, 20, 40}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = 0.01 + 0.02*math.Log(v)
	}
	f := fitLog(x, y)
	if math.Abs(f.A-0.01) > 1e-9 || math.Abs(f.B-0.02) > 1e-9 || f.SE > 1e-9 {
		t.Errorf("fit %+v, want A 0.01, B 0.02, SE 0", f)
	}
	if n := f.At(0.15); math.Abs(n-math.Exp(7)) > 1e-6 {
		t.Errorf("reaches 0.15 at %v, want e^7", n)
	}
	if n := (LogFit{B: -1}).At(0.15); !math.IsNaN(n) {
		t.Errorf("a falling line reaches 0.15 at %v, want NaN", n)
	}
}
