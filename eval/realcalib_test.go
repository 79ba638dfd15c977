package eval

import (
	"math"
	"testing"

	"github.com/lexsona/lexsona/classifier"
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

// The setting kept is the shippable gate at the candidate floor with the
// most train corrections first in the inbox, then the fewest train ordinary
// suggestions; the held-out figures never choose.
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
