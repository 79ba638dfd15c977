package eval

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lexsona/lexsona/classifier"
)

// synthetic has a known answer: 27 right predictions at 0.73, 0.74, …, 0.99,
// two wrong ones at 0.72 and one at 0.50 (new items), five new items at 0.40,
// and a blocked (generic) new item at 0.90. With the guard, precision is 1
// from 0.73 up and 27/29 < 0.95 at 0.72 and below, so auto = 0.73; without
// the guard it is 27/28 ≥ 0.95 at 0.73 and 27/30 below. For confirm (guard
// off) precision is 27/31 ≥ 0.80 down to 0.41 and 27/36 < 0.80 from 0.40
// down, so confirm = 0.41.
func synthetic(split string) []Scored {
	var out []Scored
	add := func(s Scored) {
		s.Split = split
		s.ID = fmt.Sprintf("%s%d", split, len(out))
		out = append(out, s)
	}
	for i := 73; i <= 99; i++ {
		add(item("", KindMatch, []string{"r.a"}, "r.a", float64(i)/100))
	}
	add(item("", KindMatch, []string{"r.a"}, "r.b", 0.72))
	add(item("", KindNew, nil, "r.b", 0.72))
	add(item("", KindNew, nil, "r.c", 0.50))
	for range 5 {
		add(item("", KindNew, nil, "r.c", 0.40))
	}
	g := item("", KindNew, nil, "r.d", 0.90)
	g.Blocked = true
	add(g)
	return out
}

func TestLowestReachingKnownAnswer(t *testing.T) {
	items := synthetic("")
	for _, tc := range []struct {
		target float64
		guard  bool
		want   float64
		ok     bool
	}{
		{0.95, true, 0.73, true},
		{0.80, false, 0.41, true},
		{0.80, true, 0.41, true},
		{0.95, false, 0.73, true},
		{0.97, false, 0.91, true}, // the blocked item at 0.90 costs precision: 9/10 at 0.90, 9/9 at 0.91
		{1.00, true, 0.73, true},
	} {
		got, ok := lowestReaching(items, tc.target, tc.guard)
		if math.Abs(got-tc.want) > 1e-9 || ok != tc.ok {
			t.Errorf("lowestReaching(target %.2f, guard %v) = %.2f, %v; want %.2f, %v", tc.target, tc.guard, got, ok, tc.want, tc.ok)
		}
	}
	// A wrong prediction at the very top: 0.95 is still reached at 0.73
	// (27/28), 0.99 nowhere; the best precision, 27/28, is at 0.73.
	bad := append(synthetic(""), item("z", KindNew, nil, "r.a", 1.0))
	if got, ok := lowestReaching(bad, 0.95, true); !ok || math.Abs(got-0.73) > 1e-9 {
		t.Errorf("target 0.95 with a wrong top: %.2f, %v; want 0.73, true", got, ok)
	}
	if got, ok := lowestReaching(bad, 0.99, true); ok || math.Abs(got-0.73) > 1e-9 {
		t.Errorf("unreachable target: %.2f, %v; want 0.73 (best precision) and false", got, ok)
	}
	if got, ok := lowestReaching(nil, 0.95, true); ok || got != 1.0 {
		t.Errorf("no items: %.2f, %v", got, ok)
	}
}

func TestCalibrateSplit(t *testing.T) {
	items := append(synthetic(SplitDev), synthetic(SplitTest)...)
	r := Calibrate(items, CalibrateOptions{Guard: true})
	if r.Method != "dev/test split" || r.TargetAuto != DefaultTargetAuto || r.TargetConfirm != DefaultTargetConfirm {
		t.Errorf("method %q, targets %v/%v", r.Method, r.TargetAuto, r.TargetConfirm)
	}
	if d := cmp.Diff(classifier.Thresholds{Auto: 0.73, Confirm: 0.41}, r.Thresholds, cmpopts.EquateApprox(0, 1e-9)); d != "" || !r.AutoReached || !r.ConfirmReached {
		t.Errorf("thresholds (-want +got):\n%s reached %v %v", d, r.AutoReached, r.ConfirmReached)
	}
	if r.Test.Items != 36 || r.Test.AtAuto.TP != 27 || r.Test.AtAuto.FP != 0 || r.Test.AtAuto.FN != 1 || r.Test.AtConfirm.FP != 4 {
		t.Errorf("held-out: %+v", r.Test)
	}
	// The mapping is fitted on dev and applied to an identical test split:
	// monotone and well calibrated (PAV is exact on its own data per block).
	for i := 1; i < len(r.Mapping); i++ {
		if r.Mapping[i].P < r.Mapping[i-1].P {
			t.Errorf("mapping not monotone: %+v", r.Mapping)
		}
	}
	if r.ECE > 1e-9 || r.ECERawScore <= r.ECE {
		t.Errorf("ECE %v (raw %v): want 0 for the isotonic mapping on data like its own", r.ECE, r.ECERawScore)
	}
	if file, err := CalibrationFile(Report{Model: "m@1", Embedder: "lexical", Calibration: r}, t0()); err != nil || file.Thresholds != r.Thresholds || file.Model != "m@1" {
		t.Errorf("CalibrationFile: %+v, %v", file, err)
	}
}

func TestCalibrateCrossValidation(t *testing.T) {
	items := append(synthetic(""), synthetic("")...)
	r := Calibrate(items, CalibrateOptions{TargetAuto: 0.95, TargetConfirm: 0.8, Guard: true})
	if !strings.Contains(r.Method, "cross-validation") || r.Test.Items != len(items) || r.Dev.Items != len(items) {
		t.Errorf("method %q, test %d items, dev %d", r.Method, r.Test.Items, r.Dev.Items)
	}
	if math.Abs(r.Thresholds.Auto-0.73) > 1e-9 {
		t.Errorf("final auto threshold %.2f, want 0.73 (chosen on all items)", r.Thresholds.Auto)
	}
	if r.Test.AtAuto.TP+r.Test.AtAuto.FN != 56 {
		t.Errorf("pooled held-out counts %+v: want every match item once", r.Test.AtAuto)
	}
	split := append(synthetic(SplitDev), synthetic(SplitTest)...)
	if r := Calibrate(split, CalibrateOptions{CrossValidate: true}); !strings.Contains(r.Method, "cross-validation") {
		t.Errorf("CrossValidate ignored: %q", r.Method)
	}
}

func TestFitIsotonic(t *testing.T) {
	m := FitIsotonic([]float64{1, 2, 3, 4, 5, 6}, []float64{1, 0, 0, 1, 0, 1})
	want := Mapping{{Lo: 1, Hi: 3, P: 1.0 / 3, N: 3}, {Lo: 4, Hi: 5, P: 0.5, N: 2}, {Lo: 6, Hi: 6, P: 1, N: 1}}
	if d := cmp.Diff(want, m, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Fatalf("PAV (-want +got):\n%s", d)
	}
	for _, tc := range []struct{ x, want float64 }{
		{0, 1.0 / 3}, {2, 1.0 / 3}, {3.5, 5.0 / 12}, {4.5, 0.5}, {5.5, 0.75}, {9, 1},
	} {
		if got := m.Predict(tc.x); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Predict(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
	// Equal scores are pooled before PAV: they map to one value.
	tied := FitIsotonic([]float64{0.5, 0.5, 0.5, 0.2}, []float64{1, 0, 1, 0})
	if len(tied) != 2 || math.Abs(tied[1].P-2.0/3) > 1e-12 {
		t.Errorf("ties: %+v", tied)
	}
	if FitIsotonic(nil, nil).Predict(0.3) != 0 {
		t.Error("an empty mapping predicts 0")
	}
}

func TestECE(t *testing.T) {
	e, bins := ECE([]float64{0.15, 0.15, 0.85, 0.85}, []float64{0, 1, 1, 1})
	if math.Abs(e-0.25) > 1e-12 || len(bins) != ECEBins || bins[1].N != 2 || bins[8].Observed != 1 {
		t.Errorf("ECE = %v, bins %+v; want 0.5·0.35 + 0.5·0.15 = 0.25", e, bins)
	}
	// Separable scores: isotonic regression maps wrong to 0 and right to 1.
	x := []float64{0.1, 0.2, 0.3, 0.35, 0.6, 0.7, 0.9}
	y := []float64{0, 0, 0, 0, 1, 1, 1}
	m := FitIsotonic(x, y)
	p := make([]float64, len(x))
	for i := range x {
		p[i] = m.Predict(x[i])
	}
	if e, _ := ECE(p, y); e > 1e-12 {
		t.Errorf("separable data: ECE %v, want 0", e)
	}
	if e, _ := ECE(nil, nil); e != 0 {
		t.Errorf("ECE of nothing = %v", e)
	}
}
