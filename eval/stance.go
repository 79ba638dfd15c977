package eval

import "github.com/lexsona/lexsona/classifier"

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

// FitStance fits a stance model (classifier.StanceModel) on examples by
// Newton's method with a ridge penalty; nil when there are none of one of
// the two stances (nothing to learn).
func FitStance(examples []StanceExample) *classifier.StanceModel {
	var x [][]float64
	var y []float64
	pos := 0
	for _, e := range examples {
		x = append(x, classifier.StanceRow(e.Features, e.Cues))
		if e.Contradicts {
			y = append(y, 1)
			pos++
		} else {
			y = append(y, 0)
		}
	}
	if pos == 0 || pos == len(examples) {
		return nil
	}
	return &classifier.StanceModel{Features: classifier.StanceFeatureNames(), Weights: fitLogisticL2(x, y, stanceL2)}
}
