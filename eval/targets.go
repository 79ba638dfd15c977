package eval

import (
	"fmt"

	"github.com/lexsona/lexsona/classifier"
)

// The quality targets on held-out data: auto-band precision and recall at
// the calibrated thresholds, the share of contradictions recorded as
// reinforcements there, and the expected calibration error of the
// calibrated score → P(correct) mapping.
const (
	TargetAutoPrecision   = 0.95
	TargetAutoRecall      = 0.80
	TargetPolarityErrors  = 0.02
	TargetCalibrationECE  = 0.05
	targetComparisonSlack = 1e-12
)

// Target is one quality target and whether the held-out measurement meets
// it. Measured is false when there was nothing to measure it on (no
// contradiction items, say); such a target is not met.
type Target struct {
	Name     string  `json:"name"`
	Value    float64 `json:"value"`
	Goal     float64 `json:"goal"`
	AtMost   bool    `json:"at_most"` // the value must be ≤ Goal (else ≥)
	Measured bool    `json:"measured"`
	Met      bool    `json:"met"`
	Detail   string  `json:"detail"` // the counts behind the value
}

// Targets are the quality targets measured on the held-out items of a
// calibration (the test split, or the pooled folds of cross-validation) at
// the thresholds it chose on the other items.
type Targets struct {
	Method     string                `json:"method"`
	Thresholds classifier.Thresholds `json:"thresholds"`
	Items      int                   `json:"items"`
	Targets    []Target              `json:"targets"`
	AllMet     bool                  `json:"all_met"`
}

// MeasureTargets reads the targets off c.
func MeasureTargets(c CalibrationReport) Targets {
	a, pol := c.Test.AtAuto, c.Test.Polarity
	ts := Targets{Method: c.Method, Thresholds: c.Thresholds, Items: c.Test.Items, Targets: []Target{
		target("auto precision", a.Precision, TargetAutoPrecision, false, a.TP+a.FP > 0, frac(a.TP, a.TP+a.FP)),
		target("auto recall", a.Recall, TargetAutoRecall, false, a.RecallTP+a.FN > 0, frac(a.RecallTP, a.RecallTP+a.FN)),
		target("polarity errors", pol.ErrorRate, TargetPolarityErrors, true, pol.Contradictions > 0,
			frac(pol.Reinforced, pol.Contradictions)+" contradictions recorded as reinforcements"),
		target("ECE after calibration", c.ECE, TargetCalibrationECE, true, c.Test.Items > 0,
			fmt.Sprintf("%s, fitted on %s; before calibration %.3f", c.Map.Method, fittedOn(c.Method), c.ECERawScore)),
	}}
	ts.AllMet = true
	for _, t := range ts.Targets {
		ts.AllMet = ts.AllMet && t.Met
	}
	return ts
}

func target(name string, v, goal float64, atMost, measured bool, detail string) Target {
	met := v+targetComparisonSlack >= goal
	if atMost {
		met = v <= goal+targetComparisonSlack
	}
	return Target{Name: name, Value: v, Goal: goal, AtMost: atMost, Measured: measured, Met: measured && met, Detail: detail}
}

// where says what data a calibration of method chose its thresholds and
// mapping on.
func where(method string) string {
	if method == splitMethod {
		return "dev"
	}
	return "each training part"
}

// fittedOn says where a calibration of method fitted its mapping.
func fittedOn(method string) string {
	if method == splitMethod {
		return "dev"
	}
	return "the other folds"
}
