package eval

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// counter marks s as read as a contradiction of its top rule.
func counter(s Scored) Scored { s.Polarity = engine.Counter; return s }

// polarityItems are scored by hand; the comments give each one's outcome at
// auto 0.8 / confirm 0.5 with the guard on.
func polarityItems() []Scored {
	blocked := item("c7", KindContradiction, []string{"r.a"}, "r.a", 0.95)
	blocked.Blocked = true // guard: confirm
	silenced := item("c8", KindContradiction, []string{"r.a"}, "r.a", 0.6)
	silenced.Blocked, silenced.NoConfirm = true, true // guard: new_rule
	return []Scored{
		counter(item("c1", KindContradiction, []string{"r.a"}, "r.a", 0.9)),  // auto counterexample on its rule: right
		counter(item("c2", KindContradiction, []string{"r.a"}, "r.b", 0.85)), // auto counterexample on another rule
		item("c3", KindContradiction, []string{"r.a"}, "r.a", 0.92),          // auto reinforcement: POLARITY ERROR
		item("c4", KindContradiction, []string{"r.b"}, "r.c", 0.81),          // auto reinforcement of another rule: POLARITY ERROR
		item("c5", KindContradiction, []string{"r.b"}, "r.b", 0.7),           // confirm: right
		counter(item("c6", KindContradiction, []string{"r.b"}, "r.b", 0.3)),  // nothing: right (detected)
		blocked,  // confirm: right
		silenced, // nothing: right
		item("m1", KindMatch, []string{"r.a"}, "r.a", 0.9),                      // auto reinforcement: right
		counter(item("m2", KindMatch, []string{"r.a"}, "r.a", 0.88)),            // auto counterexample: FALSE ALARM
		counter(item("m3", KindMatch, []string{"r.a"}, "r.a", 0.6)),             // confirm: detected, no alarm recorded
		counter(item("a1", KindAmbiguous, []string{"r.a", "r.b"}, "r.b", 0.99)), // auto counterexample: FALSE ALARM
		counter(item("n1", KindNew, nil, "r.a", 0.95)),                          // new items have no polarity label
		item("m4", KindMatch, []string{"r.c"}, "r.c", 0.2),                      // nothing
	}
}

func TestDecisionAt(t *testing.T) {
	thr := classifier.Thresholds{Auto: 0.8, Confirm: 0.5}
	want := map[string][2]string{ // guard on, guard off
		"c1": {"auto_match", "auto_match"}, "c5": {"confirm", "confirm"}, "c6": {"new_rule", "new_rule"},
		"c7": {"confirm", "auto_match"}, "c8": {"new_rule", "confirm"},
	}
	for _, s := range polarityItems() {
		w, ok := want[s.ID]
		if !ok {
			continue
		}
		if got := [2]string{s.DecisionAt(thr, true), s.DecisionAt(thr, false)}; got != w {
			t.Errorf("%s: DecisionAt = %v, want %v", s.ID, got, w)
		}
	}
	unsure := item("u", KindContradiction, []string{"r.a"}, "r.a", 0.9)
	unsure.Blocked, unsure.HeldBack = true, true // the classifier asks, guard or not
	if got := [2]string{unsure.DecisionAt(thr, true), unsure.DecisionAt(thr, false)}; got != [2]string{"confirm", "confirm"} {
		t.Errorf("held back: DecisionAt = %v, want confirm both ways", got)
	}
	if got := (Scored{}).DecisionAt(classifier.Thresholds{}, false); got != classifier.DecisionNewRule {
		t.Errorf("no top rule: %s", got)
	}
	// Scores are compared rounded, as the classifier's bands do.
	if got := item("x", KindMatch, nil, "r.a", 0.79999999).DecisionAt(thr, true); got != classifier.DecisionAutoMatch {
		t.Errorf("0.79999999 at auto 0.80: %s", got)
	}
}

func TestScorePolarityHandBuilt(t *testing.T) {
	got := ScorePolarity(polarityItems(), classifier.Thresholds{Auto: 0.8, Confirm: 0.5}, true)
	want := PolarityMetrics{
		Contradictions: 8, Countered: 1, CounteredOther: 1, Reinforced: 2, Confirm: 2, Nothing: 2, Handled: 5,
		ErrorRate: 2.0 / 8, HandledRate: 5.0 / 8,
		Affirmations: 5, FalseAlarms: 2, FalseAlarmRate: 2.0 / 5,
		// Detected: c1 c2 c6 (TP), m2 m3 a1 (FP); missed c3 c4 c5 c7 c8; m1 m4 TN.
		Detector: Detection{TP: 3, FP: 3, FN: 5, TN: 2, Precision: 0.5, Recall: 3.0 / 8, F1: 2 * 0.5 * 0.375 / 0.875},
	}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("ScorePolarity (-want +got):\n%s", d)
	}
	// Guard off: c7 becomes an auto reinforcement, c8 goes to confirm.
	off := ScorePolarity(polarityItems(), classifier.Thresholds{Auto: 0.8, Confirm: 0.5}, false)
	if off.Reinforced != 3 || off.Confirm != 2 || off.Nothing != 1 {
		t.Errorf("guard off: %+v", off)
	}
	if z := ScorePolarity(nil, classifier.Thresholds{}, true); z != (PolarityMetrics{}) {
		t.Errorf("no items: %+v, want zeros (not NaN)", z)
	}
	// Pooling counts and finishing gives the same as scoring at once.
	items := polarityItems()
	thr := classifier.Thresholds{Auto: 0.8, Confirm: 0.5}
	pooled := ScorePolarity(items[:5], thr, true).plus(ScorePolarity(items[5:], thr, true)).finish()
	if d := cmp.Diff(got, pooled, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("pooled (-whole +pooled):\n%s", d)
	}
}

func TestRuleMetricsLeaveContradictionsOut(t *testing.T) {
	items := polarityItems()
	withC, _ := Score(items, nil, 0.8, true)
	var paper []Scored
	for _, s := range items {
		if s.Kind != KindContradiction {
			paper = append(paper, s)
		}
	}
	without, _ := Score(paper, nil, 0.8, true)
	if withC != without {
		t.Errorf("Score with contradictions %+v, without %+v: they must not count", withC, without)
	}
	fps, fns := WorstErrors(items, 0.8, true, 100)
	for _, e := range append(fps, fns...) {
		if e.Kind == KindContradiction {
			t.Errorf("worst errors list contradiction item %s", e.ID)
		}
	}
	if r := RankKinds(items, KindContradiction); r.Items != 8 {
		t.Errorf("contradiction ranking over %d items", r.Items)
	}
	if r := Rank(items); r.Items != 5 {
		t.Errorf("Rank over %d items, want the 5 match and ambiguous", r.Items)
	}
}

func TestPolarityErrors(t *testing.T) {
	errs := PolarityErrors(polarityItems(), classifier.Thresholds{Auto: 0.8, Confirm: 0.5}, true, 10)
	var got []string
	for _, e := range errs {
		got = append(got, e.Type+":"+e.ID)
	}
	want := []string{"false_alarm:a1", "reinforced:c3", "false_alarm:m2", "reinforced:c4"} // most confident first
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("PolarityErrors (-want +got):\n%s", d)
	}
	if errs := PolarityErrors(polarityItems(), classifier.Thresholds{Auto: 0.8, Confirm: 0.5}, true, 1); len(errs) != 1 {
		t.Errorf("n = 1: %d errors", len(errs))
	}
}

func TestBandsContradiction(t *testing.T) {
	items := polarityItems()[:8]
	for i := range items {
		items[i].Decision = items[i].DecisionAt(classifier.Thresholds{Auto: 0.8, Confirm: 0.5}, true)
	}
	got := Bands(items, false)[KindContradiction]
	// Auto: c1 (its rule, countered: correct), c2 (another rule), c3 (reinforced), c4.
	if want := (BandCounts{Items: 8, Auto: 4, AutoCorrect: 1, Confirm: 2, ConfirmTopAcceptable: 2, ConfirmTopRate: 1, New: 2}); got != want {
		t.Errorf("contradiction bands %+v, want %+v", got, want)
	}
}

func TestMeasureTargets(t *testing.T) {
	c := CalibrationReport{Method: splitMethod, Thresholds: classifier.Thresholds{Auto: 0.7, Confirm: 0.5}, ECE: 0.04, ECERawScore: 0.2,
		Map: ProbMap{Method: MapIsotonic},
		Test: Operating{Items: 100,
			AtAuto:   Metrics{Precision: 0.95, Recall: 0.79, TP: 19, FP: 1, FN: 5, RecallTP: 19},
			Polarity: PolarityMetrics{Contradictions: 50, Reinforced: 1, ErrorRate: 0.02}}}
	ts := MeasureTargets(c)
	var got []string
	for _, tg := range ts.Targets {
		got = append(got, targetText(tg))
	}
	want := []string{
		"auto precision 0.95 (19/20) ≥ 0.95: met",
		"auto recall 0.79 (19/24) ≥ 0.80: NOT MET",
		"polarity errors 2.0% (1/50 contradictions recorded as reinforcements) ≤ 2.0%: met",
		"ECE after calibration 0.040 (isotonic, fitted on dev; before calibration 0.200) ≤ 0.050: met",
	}
	if d := cmp.Diff(want, got); d != "" || ts.AllMet || ts.Items != 100 || ts.Thresholds != c.Thresholds {
		t.Errorf("targets (-want +got):\n%s all met %v", d, ts.AllMet)
	}
	c.Test.AtAuto.Recall = 0.8
	if !MeasureTargets(c).AllMet {
		t.Error("every target reached, but AllMet is false")
	}
	c.Test.Polarity = PolarityMetrics{}
	ts = MeasureTargets(c)
	if ts.AllMet || ts.Targets[2].Measured || !strings.Contains(targetText(ts.Targets[2]), "not measured") {
		t.Errorf("no contradiction items: %+v", ts.Targets[2])
	}
	var buf bytes.Buffer
	WriteTargetsText(&buf, ts)
	if !strings.Contains(buf.String(), "held-out test split (100 items) at the thresholds calibrated on dev (auto 0.70, confirm 0.50): not all met") {
		t.Errorf("targets text:\n%s", buf.String())
	}
}

func TestCalibrationReportsPolarityOnHeldOut(t *testing.T) {
	var items []Scored
	for _, split := range []string{SplitDev, SplitTest} {
		for _, s := range append(synthetic(split), polarityItems()...) {
			s.Split = split
			items = append(items, s)
		}
	}
	r := Calibrate(items, CalibrateOptions{Guard: true})
	want := ScorePolarity(items[len(items)/2:], r.Thresholds, true) // the test split
	if want.Contradictions != 8 || want.Reinforced == 0 {
		t.Fatalf("test split: %+v", want)
	}
	if d := cmp.Diff(want, r.Test.Polarity, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("held-out polarity (-want +got):\n%s", d)
	}
	cv := Calibrate(items, CalibrateOptions{Guard: true, CrossValidate: true})
	if cv.Test.Polarity.Contradictions != 16 || cv.Test.Polarity.Affirmations != 2*(28+5) {
		t.Errorf("pooled polarity over the folds: %+v", cv.Test.Polarity)
	}
}
