package eval

import (
	"math"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// StanceModel is a learned reading of a suggestion's direction: a logistic
// model of P(the text contradicts its top rule) over what the rule-based
// reading rests on (classifier.StanceFeatures: the sides' stance, the cue,
// insistence, a reversed preference, the lean) and the gate's cues. It does
// not replace the rule-based reading: where the two disagree, the
// suggestion says so and lets the user choose (Direction's ok).
type StanceModel struct {
	Features []string  `json:"features"`
	Weights  []float64 `json:"weights"` // the bias first, then one per feature
}

// StanceExample is one labelled stance: the features of a text against
// the rule it is about, and whether it contradicts it.
type StanceExample struct {
	Features    classifier.StanceFeatures
	Cues        []float64
	Contradicts bool
}

// stanceL2 is the ridge penalty of the stance model: the labelled stances
// are few and many features separate them on their own.
const stanceL2 = 0.05

// stanceNames are the model's features, in order: the rule-based reading's,
// then the gate's cues.
func stanceNames(cueNames []string) []string {
	names := []string{"side_support", "side_contradict", "cue_constraint", "cue_dismissal", "cue_permission", "cue_retraction", "cue_reversal",
		"insists", "reversed", "lean", "lean_known"}
	return append(names, cueNames...)
}

// stanceRow is the model's input for f and cues, the constant 1 first.
func stanceRow(f classifier.StanceFeatures, cues []float64) []float64 {
	x := []float64{1, b2f(f.Side > 0), b2f(f.Side < 0)}
	for _, k := range []classifier.CueKind{classifier.CueConstraint, classifier.CueDismissal, classifier.CuePermission, classifier.CueRetraction, classifier.CueReversal} {
		x = append(x, b2f(f.Cue == k))
	}
	x = append(x, b2f(f.Insists), b2f(f.Reversed))
	if f.LeanKnown {
		x = append(x, f.Lean, 1)
	} else {
		x = append(x, 0, 0)
	}
	return append(x, cues...)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// FitStance fits a stance model on examples (nil when there are none of
// one of the two stances: nothing to learn).
func FitStance(examples []StanceExample, cueNames []string) *StanceModel {
	var x [][]float64
	var y []float64
	pos := 0
	for _, e := range examples {
		x = append(x, stanceRow(e.Features, e.Cues))
		y = append(y, b2f(e.Contradicts))
		pos += int(b2f(e.Contradicts))
	}
	if pos == 0 || pos == len(examples) {
		return nil
	}
	return &StanceModel{Features: stanceNames(cueNames), Weights: fitLogisticL2(x, y, stanceL2)}
}

// Prob is P(contradicts) for f and cues.
func (m *StanceModel) Prob(f classifier.StanceFeatures, cues []float64) float64 {
	z := 0.0
	for j, v := range stanceRow(f, cues) {
		if j < len(m.Weights) {
			z += m.Weights[j] * v
		}
	}
	return 1 / (1 + math.Exp(-z))
}

// Direction is the model's direction for classification cl of reading r
// (engine.Counter from P ≥ 0.5); ok is false when cl has no candidate.
func (m *StanceModel) Direction(r classifier.Reading, cl classifier.Classification) (engine.Polarity, bool) {
	f, ok := cl.StanceFeatures()
	if !ok {
		return 0, false
	}
	if m.Prob(f, r.Cues) >= 0.5 {
		return engine.Counter, true
	}
	return engine.Reinforce, true
}
