package eval

import (
	"fmt"
	"math"

	"github.com/lexsona/lexsona/classifier"
)

// Default precision targets of calibration.
const (
	DefaultTargetAuto    = 0.95
	DefaultTargetConfirm = 0.80
	// Folds is the number of cross-validation folds used when the dataset
	// has no dev/test split.
	Folds = 5
)

// splitMethod is CalibrationReport.Method for a dev/test split.
const splitMethod = "dev/test split"

// CalibrateOptions tune Calibrate. Targets of 0 mean the defaults.
type CalibrateOptions struct {
	TargetAuto, TargetConfirm float64
	// Guard chooses the auto threshold with the guard's blocks applied (the
	// service's behaviour). The confirm threshold never uses it: the guard
	// only demotes auto matches, which then go to confirm anyway.
	Guard bool
	// CrossValidate uses Folds-fold cross-validation even when the items
	// have a dev/test split.
	CrossValidate bool
}

// Operating is precision and recall at chosen thresholds on some items: at
// the auto threshold (the guard as in CalibrateOptions) and at the confirm
// threshold (the top candidate shown for confirmation, guard off); and what
// the bands at those thresholds do with the polarity of the items.
type Operating struct {
	Items     int             `json:"items"`
	AtAuto    Metrics         `json:"at_auto"`
	AtConfirm Metrics         `json:"at_confirm"`
	Polarity  PolarityMetrics `json:"polarity"`
}

// CalibrationReport is what Calibrate chose and how it does on held-out data.
type CalibrationReport struct {
	Method         string                `json:"method"` // "dev/test split" or "5-fold cross-validation"
	TargetAuto     float64               `json:"target_auto"`
	TargetConfirm  float64               `json:"target_confirm"`
	Thresholds     classifier.Thresholds `json:"thresholds"`
	AutoReached    bool                  `json:"auto_reached"`    // false: no threshold reached TargetAuto on dev
	ConfirmReached bool                  `json:"confirm_reached"` // false: likewise for TargetConfirm
	Dev            Operating             `json:"dev"`             // where the thresholds were chosen (all items for cross-validation)
	Test           Operating             `json:"test"`            // held out (pooled over the folds for cross-validation)
	// AutoMargin is what was added to TargetAuto when choosing the auto
	// threshold (see autoMargin); AutoMarginPrecision is the precision of
	// that choice by cross-validation inside the data it was chosen on.
	AutoMargin          float64 `json:"auto_margin"`
	AutoMarginPrecision float64 `json:"auto_margin_cv_precision"`
	Mapping             Mapping `json:"mapping"` // isotonic score → P(top rule correct), fitted on dev
	// Map is the score → P(top rule correct) mapping chosen by
	// cross-validation on dev among MapChoices, and fitted on dev.
	Map         ProbMap          `json:"map"`
	MapChoices  []MapChoice      `json:"map_choices"`
	ECE         float64          `json:"ece"`           // of Map on the held-out items, ECEBins bins
	ECEIsotonic float64          `json:"ece_isotonic"`  // of Mapping (isotonic) on the same items
	ECERawScore float64          `json:"ece_raw_score"` // of the raw score read as a probability, same items
	Reliability []ReliabilityBin `json:"reliability"`   // Map on the held-out items
}

// Calibrate chooses the thresholds on the dev split (or, without splits or
// with CrossValidate, on each fold's training part of a Folds-fold
// cross-validation stratified by kind; the final thresholds are then chosen
// on all items) and reports them on the held-out items. The auto threshold
// is the lowest t in 0.00…1.00 (step 0.01) whose predictions (top score ≥ t,
// guard as in o) reach TargetAuto precision; the confirm threshold is the
// lowest whose predictions (guard off) reach TargetConfirm, capped at auto.
// The auto threshold is chosen for TargetAuto plus the smallest margin that
// keeps the choice's precision at TargetAuto by cross-validation inside the
// data it is chosen on (autoMargin): a threshold that only just reaches the
// target on dev tends to fall short on new data.
// When no threshold reaches a target, the one with the best precision is
// taken and *Reached is false. The score → P(correct) mapping ("the top rule
// is acceptable") is the one among isotonic regression on the top score and
// logistic regression on the score, or on the score and its margin over the
// runner-up, with the lowest ECE by cross-validation inside the data it is
// fitted on (chooseProbMap). Thresholds and mapping are chosen on the
// paper's kinds (see Score); the polarity of every item, contradictions
// included, is reported at the chosen thresholds (Operating.Polarity).
func Calibrate(items []Scored, o CalibrateOptions) CalibrationReport {
	if o.TargetAuto == 0 {
		o.TargetAuto = DefaultTargetAuto
	}
	if o.TargetConfirm == 0 {
		o.TargetConfirm = DefaultTargetConfirm
	}
	r := CalibrationReport{TargetAuto: o.TargetAuto, TargetConfirm: o.TargetConfirm}
	var dev, test []Scored
	for _, s := range items {
		switch s.Split {
		case SplitDev:
			dev = append(dev, s)
		case SplitTest:
			test = append(test, s)
		}
	}
	var p, y []float64 // held-out predicted probabilities and outcomes
	var raw, iso []float64
	if len(dev) > 0 && len(test) > 0 && !o.CrossValidate {
		r.Method = splitMethod
		r.Thresholds, r.AutoReached, r.ConfirmReached, r.AutoMargin, r.AutoMarginPrecision = chooseThresholds(dev, o)
		r.Test = operate(test, r.Thresholds, o.Guard)
		r.Mapping = fitMapping(dev)
		r.Map, r.MapChoices = chooseProbMap(dev)
		iso, _, _ = apply(r.Mapping, test)
		p, y, raw = applyProbMap(r.Map, test)
	} else {
		r.Method = fmt.Sprintf("%d-fold cross-validation", Folds)
		folds := foldsOf(items)
		var pooled [2]Metrics
		var pol PolarityMetrics
		for f := range Folds {
			train, held := splitFold(items, folds, f)
			t, _, _, _, _ := chooseThresholds(train, o)
			op := operate(held, t, o.Guard)
			pooled[0], pooled[1] = add(pooled[0], op.AtAuto), add(pooled[1], op.AtConfirm)
			pol = pol.plus(op.Polarity)
			fi, _, _ := apply(fitMapping(train), held)
			m, _ := chooseProbMap(train)
			fp, fy, fr := applyProbMap(m, held)
			p, y, raw, iso = append(p, fp...), append(y, fy...), append(raw, fr...), append(iso, fi...)
		}
		r.Test = Operating{Items: len(items), AtAuto: pooled[0].finish(), AtConfirm: pooled[1].finish(), Polarity: pol.finish()}
		dev = items
		r.Thresholds, r.AutoReached, r.ConfirmReached, r.AutoMargin, r.AutoMarginPrecision = chooseThresholds(items, o)
		r.Mapping = fitMapping(items)
		r.Map, r.MapChoices = chooseProbMap(items)
	}
	r.Dev = operate(dev, r.Thresholds, o.Guard)
	r.ECE, r.Reliability = ECE(p, y)
	r.ECEIsotonic, _ = ECE(iso, y)
	r.ECERawScore, _ = ECE(raw, y)
	return r
}

func add(a, b Metrics) Metrics {
	return Metrics{TP: a.TP + b.TP, FP: a.FP + b.FP, FN: a.FN + b.FN, RecallTP: a.RecallTP + b.RecallTP}
}

// foldsOf assigns items to Folds folds round-robin within each kind.
func foldsOf(items []Scored) []int {
	next := map[string]int{}
	out := make([]int, len(items))
	for i, s := range items {
		out[i] = next[s.Kind] % Folds
		next[s.Kind]++
	}
	return out
}

// splitFold returns the items outside fold f (to fit on) and inside it (to
// check on), folds being foldsOf(items).
func splitFold(items []Scored, folds []int, f int) (train, held []Scored) {
	for i, s := range items {
		if folds[i] == f {
			held = append(held, s)
		} else {
			train = append(train, s)
		}
	}
	return train, held
}

// chooseThresholds picks the auto and confirm thresholds on items; it
// returns them, whether each reached its target, and the auto margin with
// its cross-validated precision (autoMargin).
func chooseThresholds(items []Scored, o CalibrateOptions) (classifier.Thresholds, bool, bool, float64, float64) {
	margin, cvP := autoMargin(items, o.TargetAuto, o.Guard)
	auto, okA := lowestReaching(items, min(o.TargetAuto+margin, 1), o.Guard)
	confirm, okC := lowestReaching(items, o.TargetConfirm, false)
	return classifier.Thresholds{Auto: auto, Confirm: min(confirm, auto)}, okA, okC, margin, cvP
}

// MaxAutoMargin bounds the margin autoMargin adds to the auto target.
const MaxAutoMargin = 0.04

// autoMargin returns the smallest margin δ in 0, 0.01, …, MaxAutoMargin
// such that choosing the auto threshold for target + δ on each training part
// of a Folds-fold cross-validation of items (stratified by kind) gives a
// pooled held-out precision ≥ target, with that precision; MaxAutoMargin
// and its precision when none does.
func autoMargin(items []Scored, target float64, guard bool) (float64, float64) {
	folds := foldsOf(items)
	var margin, precision float64
	for i := 0; i <= int(math.Round(MaxAutoMargin*100)); i++ {
		margin = float64(i) / 100
		var pooled Metrics
		for f := range Folds {
			train, held := splitFold(items, folds, f)
			t, _ := lowestReaching(train, min(target+margin, 1), guard)
			m, _ := Score(held, nil, t, guard)
			pooled = add(pooled, m)
		}
		precision = pooled.finish().Precision
		if precision+1e-12 >= target {
			break
		}
	}
	return margin, precision
}

// lowestReaching returns the lowest threshold i/100 (0 ≤ i ≤ 100) at which
// the predictions (every item scoring at least it) have precision ≥ target:
// the highest recall that keeps the precision promise. Failing that it
// returns the threshold of best precision (the lowest among equals) and
// false; with no prediction at any threshold, 1 and false.
func lowestReaching(items []Scored, target float64, guard bool) (float64, bool) {
	best, bestP := 100, -1.0
	found := -1
	for i := 100; i >= 0; i-- {
		m, _ := Score(items, nil, float64(i)/100, guard)
		if m.TP+m.FP == 0 {
			continue
		}
		if m.Precision+1e-12 >= target {
			found = i
		}
		if m.Precision >= bestP {
			best, bestP = i, m.Precision
		}
	}
	if found >= 0 {
		return float64(found) / 100, true
	}
	return float64(best) / 100, false
}

// operate is the metrics of items at t.
func operate(items []Scored, t classifier.Thresholds, guard bool) Operating {
	a, _ := Score(items, nil, t.Auto, guard)
	c, _ := Score(items, nil, t.Confirm, false)
	return Operating{Items: len(items), AtAuto: a, AtConfirm: c, Polarity: ScorePolarity(items, t, guard)}
}

// outcome is 1 when the item's top rule is acceptable, else 0.
func outcome(s Scored) float64 {
	if s.Accepts(s.Top) {
		return 1
	}
	return 0
}

// fitMapping fits the isotonic mapping on the top scores of items of the
// paper's kinds (a contradiction's right outcome is about polarity, not the
// rule alone).
func fitMapping(items []Scored) Mapping {
	x, y := make([]float64, 0, len(items)), make([]float64, 0, len(items))
	for _, s := range items {
		if s.Top != "" && s.Kind != KindContradiction {
			x, y = append(x, s.Score), append(y, outcome(s))
		}
	}
	return FitIsotonic(x, y)
}

// apply maps the top scores of items of the paper's kinds through m,
// returning the probabilities, the outcomes and the raw scores clamped to
// [0, 1].
func apply(m Mapping, items []Scored) (p, y, raw []float64) {
	for _, s := range items {
		if s.Top == "" || s.Kind == KindContradiction {
			continue
		}
		p, y, raw = append(p, m.Predict(s.Score)), append(y, outcome(s)), append(raw, min(max(s.Score, 0), 1))
	}
	return p, y, raw
}
