package eval

import (
	"math"
	"testing"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/gate"
)

// The stance model learns a direction its features separate, and there is
// nothing to learn from one direction alone.
func TestFitStance(t *testing.T) {
	cues := make([]float64, len(classifier.StanceFeatureNames())-11)
	var ex []StanceExample
	for i := 0; i < 10; i++ {
		ex = append(ex, StanceExample{Features: classifier.StanceFeatures{Cue: classifier.CuePermission}, Cues: cues, Contradicts: true},
			StanceExample{Features: classifier.StanceFeatures{Side: 1}, Cues: cues})
	}
	m := FitStance(ex)
	if m == nil {
		t.Fatal("no model")
	}
	if p := m.Prob(ex[0].Features, cues); p < 0.8 {
		t.Errorf("P(contradicts | permission) = %v", p)
	}
	if p := m.Prob(ex[1].Features, cues); p > 0.2 {
		t.Errorf("P(contradicts | supporting side) = %v", p)
	}
	if FitStance(ex[1:2]) != nil {
		t.Error("a model from one direction alone")
	}
}

// The setting kept is the shippable gate at the candidate floor, with
// out-of-sample train figures, with the most train corrections first in the
// inbox, then the most train corrections past the gate, then the fewest
// train ordinary suggestions; the held-out figures never choose.
func TestChosenSetting(t *testing.T) {
	nan := math.NaN()
	cal := RealCalibration{Settings: []RealSetting{
		{Gate: "shipped", Floor: nan, Train: RealCounts{Ordinary: 100, OrdinaryInbox: 3, Fit: 10, RightFirst: 1},
			Test: RealCounts{Ordinary: 100, OrdinaryInbox: 0, Fit: 10, RightFirst: 9}},
		{Gate: "refit", Floor: nan, Train: RealCounts{Ordinary: 100, OrdinaryInbox: 2, Fit: 10, RightFirst: 1},
			Test: RealCounts{Ordinary: 100, OrdinaryInbox: 9, Fit: 10, RightFirst: 0}},
		{Gate: "clauses", Floor: nan, Train: RealCounts{Ordinary: 100, OrdinaryInbox: 0, Fit: 10, RightFirst: 5}},
		{Gate: "joint", Floor: 0.2, Train: RealCounts{Ordinary: 100, OrdinaryInbox: 0, Fit: 10, RightFirst: 5}},
	}}
	if got := cal.Chosen(); got.Gate != "refit" {
		t.Errorf("kept %q, want refit", got.Gate)
	}
}

func TestChosenSettingPassesByInSampleAndCountsPasses(t *testing.T) {
	nan := math.NaN()
	cal := RealCalibration{Settings: []RealSetting{
		{Gate: "shipped", Floor: nan, InSample: true, Train: RealCounts{Ordinary: 100, OrdinaryInbox: 1, Fit: 10, RightFirst: 3, Passed: 9}},
		{Gate: "refit", Floor: nan, Train: RealCounts{Ordinary: 100, OrdinaryInbox: 1, Fit: 10, RightFirst: 0, Passed: 4}},
		{Gate: "joint", Floor: nan, Train: RealCounts{Ordinary: 100, OrdinaryInbox: 2, Fit: 10, RightFirst: 0, Passed: 5}},
	}}
	if got := cal.Chosen(); got.Gate != "joint" {
		t.Errorf("kept %q, want joint (shipped is in-sample; joint passes more at the same right count)", got.Gate)
	}
}

// The inbox cap holds for all ordinary prompts and for the English ones
// alone.
func TestWithinCap(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    RealCounts
		want bool
	}{
		{"both under", RealCounts{Ordinary: 1000, OrdinaryInbox: 20, EnglishOrdinary: 500, EnglishOrdinaryInbox: 12}, true},
		{"all over", RealCounts{Ordinary: 1000, OrdinaryInbox: 26, EnglishOrdinary: 500, EnglishOrdinaryInbox: 12}, false},
		{"English over, all under", RealCounts{Ordinary: 1000, OrdinaryInbox: 20, EnglishOrdinary: 500, EnglishOrdinaryInbox: 13}, false},
		{"no English prompts", RealCounts{Ordinary: 1000, OrdinaryInbox: 20}, true},
	} {
		if got := tc.c.withinCap(); got != tc.want {
			t.Errorf("%s: withinCap %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A gate is in-sample when it is one of calibration's own fits: same
// weights, bias and features, whatever its threshold or description.
func TestSameFit(t *testing.T) {
	a := gate.Model{Weights: []float64{0.5, -1}, Cues: []string{"x"}, Bias: 0.1, Threshold: 0.4, Trained: "one"}
	b := a
	b.Threshold, b.Trained = 0.6, "two"
	if !sameFit(a, b) {
		t.Error("a fit at another threshold is not the same fit")
	}
	c := a
	c.Weights = []float64{0.5, -0.9}
	d := a
	d.Extra = []string{"top"}
	if sameFit(a, c) || sameFit(a, d) {
		t.Error("other weights or features are the same fit")
	}
}

// The shipped gate is in-sample when it is this calibration's refit or
// joint fit, or says it was fitted with the train repositories; a gate
// fitted on the written stream alone, or only thresholded on train, is not.
func TestFittedOnTrain(t *testing.T) {
	fit := gate.Model{Weights: []float64{1, 2}, Bias: 0.5}
	other := gate.Model{Weights: []float64{3, 4}, Bias: 0.5}
	variants := []gateVariant{{name: "written", model: fit}, {name: "joint", model: other}}
	for _, tc := range []struct {
		name string
		sm   gate.Model
		want bool
	}{
		{"equal to the written fit only", fit, false},
		{"equal to the joint fit", other, true},
		{"described as fitted with train", gate.Model{Trained: "the prose of x (3 prompts) and of " + trainedOnTrain + " (5 prompts)"}, true},
		{"only its threshold chosen on train", gate.Model{Trained: "x; its threshold chosen on " + trainedOnTrain}, false},
	} {
		if got := fittedOnTrain(tc.sm, variants); got != tc.want {
			t.Errorf("%s: fittedOnTrain %v, want %v", tc.name, got, tc.want)
		}
	}
}
