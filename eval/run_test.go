package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/registry"
)

// TestRunLexicalEndToEnd checks the shipped dataset through the lexical
// embedder for sanity only: the numbers themselves are the README's business.
func TestRunLexicalEndToEnd(t *testing.T) {
	r := MustLexicalReport(t)
	if r.Embedder != "lexical" || !strings.HasPrefix(r.Model, "lexical-v1@") || r.ThresholdsSource != classifier.SourceDefault {
		t.Errorf("embedder %q model %q thresholds from %q", r.Embedder, r.Model, r.ThresholdsSource)
	}
	checkReport(t, r, MustShipped(t))
	// The lexical embedder scores by its own vectors alone: the paper's
	// table is the product's scoring at the paper's thresholds.
	if at, _ := Score(r.Results, nil, Paper.Threshold, true); r.Scoring != ScoringDense || r.PaperComparison.AtThreshold.Overall != at {
		t.Errorf("scoring %q, paper table %+v; want %q and %+v", r.Scoring, r.PaperComparison.AtThreshold.Overall, ScoringDense, at)
	}
	t.Log("\n" + reportText(r))
}

// reportText is r as WriteText prints it.
func reportText(r Report) string {
	var text bytes.Buffer
	WriteText(&text, r)
	return text.String()
}

// checkReport checks the structure of a report of the dataset d over the
// default pack: every section present and consistent with the others and
// with the classifier's own decisions, whatever the embedder.
func checkReport(t *testing.T, r Report, d *Dataset) {
	t.Helper()
	want := d.Count()
	findable := want[KindMatch] + want[KindAmbiguous]
	if fmt.Sprint(r.Counts) != fmt.Sprint(want) || len(r.Results) != len(d.Items) {
		t.Errorf("counts %v, %d results; want %v, %d", r.Counts, len(r.Results), want, len(d.Items))
	}
	for name, m := range map[string]Metrics{"overall": r.Overall, "guard off": r.GuardOff.Overall,
		"at 0.85": r.PaperComparison.AtThreshold.Overall, "at 0.75": r.PaperComparison.AtAblation.Overall} {
		checkMetrics(t, name, m)
		if m.TP+m.FN != findable {
			t.Errorf("%s: TP %d + FN %d != %d match and ambiguous items", name, m.TP, m.FN, findable)
		}
	}
	if p := r.PaperComparison; p.AtThreshold.Threshold != Paper.Threshold || p.AtAblation.Threshold != Paper.AblationThreshold ||
		len(p.AtThreshold.ByCategory) != 4 || len(p.AtAblation.GuardOffByCategory) != 4 {
		t.Errorf("paper comparison at %v and %v, %d categories", p.AtThreshold.Threshold, p.AtAblation.Threshold, len(p.AtThreshold.ByCategory))
	}
	if len(r.ByCategory) != 4 {
		t.Errorf("by_category has %d categories, want the pack's 4", len(r.ByCategory))
	}
	if r.Head == nil || len(r.Head.Rows) < 4 || r.Head.Rows[0].Scorer != HeadScore {
		t.Errorf("head: %+v, want the score and the heads", r.Head)
	} else {
		devFindable := 0
		for _, it := range d.Items {
			if (it.Kind == KindMatch || it.Kind == KindAmbiguous) && (it.Split == "" || it.Split == SplitDev) {
				devFindable++
			}
		}
		for _, row := range r.Head.Rows {
			checkMetrics(t, "head "+row.Scorer, row.Auto)
			if row.Auto.TP+row.Auto.FN != devFindable {
				t.Errorf("head %s: TP %d + FN %d != %d dev match and ambiguous items", row.Scorer, row.Auto.TP, row.Auto.FN, devFindable)
			}
		}
	}
	for c, m := range r.ByCategory {
		checkMetrics(t, c, m)
	}
	if len(r.Sweep) != 66 || len(r.GuardOff.Sweep) != 66 {
		t.Errorf("sweeps of %d and %d points", len(r.Sweep), len(r.GuardOff.Sweep))
	}
	for i, p := range r.Sweep {
		if p.TP+p.FN != findable || (i > 0 && p.Recall > r.Sweep[i-1].Recall) {
			t.Errorf("sweep point %+v", p)
		}
	}
	for _, k := range Kinds {
		b := r.Bands[k]
		if b.Auto+b.Confirm+b.New != r.Counts[k] {
			t.Errorf("bands of %s: %+v", k, b)
		}
	}
	// The guard only ever removes auto matches.
	if r.GuardOff.Overall.TP < r.Overall.TP || r.GuardOff.Overall.FP < r.Overall.FP {
		t.Errorf("guard on %+v, off %+v", r.Overall, r.GuardOff.Overall)
	}
	// The bands and polarities derived from all scores, the guard's verdict
	// and the polarity agree with the classifier's own decisions at the
	// report's thresholds.
	for _, s := range r.Results {
		if s.DecisionAt(r.Thresholds, true) != s.Decision || s.DecisionAt(r.Thresholds, false) != s.DecisionGuardOff {
			t.Errorf("%s: decisions %s/%s but score %.4f blocked %v (no confirm %v) at %+v gives %s/%s", s.ID, s.Decision, s.DecisionGuardOff,
				s.Score, s.Blocked, s.NoConfirm, r.Thresholds, s.DecisionAt(r.Thresholds, true), s.DecisionAt(r.Thresholds, false))
		}
		if (s.Decision == classifier.DecisionAutoMatch) != (s.Prediction(r.Thresholds.Auto, true) != "") {
			t.Errorf("%s: decision %s but prediction %q at auto %.2f", s.ID, s.Decision, s.Prediction(r.Thresholds.Auto, true), r.Thresholds.Auto)
		}
		if s.Decision != classifier.DecisionNewRule && s.DecisionPolarity != s.Polarity {
			t.Errorf("%s: the %s decision has polarity %d, the all-scores classification %d", s.ID, s.Decision, s.DecisionPolarity, s.Polarity)
		}
		if s.Kind != KindNew && (s.ExpectedRank < 1 || s.ExpectedRank > registry.Default().Len()) {
			t.Errorf("%s: expected rank %d", s.ID, s.ExpectedRank)
		}
	}
	dev, test := 0, 0
	for _, it := range d.Items {
		if it.Split == SplitDev {
			dev++
		} else {
			test++
		}
	}
	if c := r.Calibration; c.Method != "dev/test split" || c.Dev.Items != dev || c.Test.Items != test || c.ECE < 0 || c.ECE > 1 {
		t.Errorf("calibration %s on %d dev / %d held-out items, ECE %v", c.Method, c.Dev.Items, c.Test.Items, c.ECE)
	}
	if cv := r.CrossValidation; cv == nil || !strings.Contains(cv.Method, "cross-validation") || cv.Test.Items != len(d.Items) {
		t.Errorf("cross-validation %+v", cv)
	}
	if tg := r.Targets; tg.Method != r.Calibration.Method || tg.Items != test || tg.Thresholds != r.Calibration.Thresholds || len(tg.Targets) != 4 ||
		tg.Targets[0].Value != r.Calibration.Test.AtAuto.Precision || tg.Targets[2].Value != r.Calibration.Test.Polarity.ErrorRate {
		t.Errorf("targets %+v", tg)
	}
	if len(r.Splits) != 2 || r.Splits[0].Split != SplitDev || r.Splits[0].Items != dev || r.Splits[1].Items != test ||
		r.Splits[0].Counts[KindContradiction]+r.Splits[1].Counts[KindContradiction] != want[KindContradiction] {
		t.Errorf("splits %+v", r.Splits)
	}
	p := r.Polarity.All
	if p.Contradictions != want[KindContradiction] || p.Affirmations != findable || p.Handled+p.Reinforced+p.CounteredOther != p.Contradictions ||
		p.Detector.TP+p.Detector.FN != p.Contradictions || p.Detector.FP+p.Detector.TN != findable {
		t.Errorf("polarity %+v", p)
	}
	if r.Polarity.BySplit[SplitDev].Contradictions+r.Polarity.BySplit[SplitTest].Contradictions != p.Contradictions {
		t.Errorf("polarity by split %+v", r.Polarity.BySplit)
	}
	if r.LowOverlap.MatchItems != want[KindMatch] || 3*r.LowOverlap.LowOverlap < want[KindMatch] {
		t.Errorf("low overlap %+v", r.LowOverlap)
	}
	var md bytes.Buffer
	text := reportText(r)
	WriteMarkdown(&md, r, nil)
	for _, want := range []string{"Targets on the held-out test split", "auto precision", "polarity errors", "ECE after calibration",
		"overall", "tool_preference", "paper", "P@0.85", "P@0.75", "Bands", "contradiction", "Ablation", "Calibration", "cross-validation",
		"By split", "Polarity at", "contradiction detector", "false positives"} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q", want)
		}
	}
	for _, want := range []string{"## Targets", "## The paper's operating points", "## By split", "## Polarity", "| overall |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown report lacks %q", want)
		}
	}
}

func checkMetrics(t *testing.T, name string, m Metrics) {
	t.Helper()
	for _, v := range []float64{m.Precision, m.Recall, m.F1} {
		if !(v >= 0 && v <= 1) {
			t.Errorf("%s: %+v out of [0, 1]", name, m)
		}
	}
}

// TestReportJSONContract checks the keys the issue specifies.
func TestReportJSONContract(t *testing.T) {
	data, err := json.Marshal(MustLexicalReport(t))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	json.Unmarshal(data, &m)
	for _, k := range []string{"embedder", "model", "thresholds", "overall", "by_category", "bands", "sweep", "calibration", "guard_off", "ablation", "worst_errors", "paper",
		"cross_validation", "targets", "paper_comparison", "splits", "polarity"} {
		if _, ok := m[k]; !ok {
			t.Errorf("report JSON lacks %q", k)
		}
	}
	keys := func(raw json.RawMessage) []string {
		var o map[string]any
		json.Unmarshal(raw, &o)
		var ks []string
		for k := range o {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	if got := keys(m["thresholds"]); !slices.Equal(got, []string{"auto", "confirm"}) {
		t.Errorf("thresholds keys %v", got)
	}
	for _, k := range []string{"precision", "recall", "f1", "tp", "fp", "fn"} {
		if !slices.Contains(keys(m["overall"]), k) {
			t.Errorf("overall lacks %q", k)
		}
	}
	var sweep []map[string]any
	json.Unmarshal(m["sweep"], &sweep)
	if len(sweep) != 66 || sweep[0]["threshold"] != 0.3 || sweep[65]["threshold"] != 0.95 || sweep[0]["f1"] == nil {
		t.Errorf("sweep JSON: %d points, first %v", len(sweep), sweep[0])
	}
}

// TestRunCalibrationRoundTrip writes the calibration file and checks that the
// classifier (through a second Run) then uses its thresholds for the model.
func TestRunCalibrationRoundTrip(t *testing.T) {
	r := MustLexicalReport(t)
	dir := t.TempDir()
	cal, err := CalibrationFile(r, t0())
	if err != nil {
		t.Fatal(err)
	}
	if err := classifier.WriteCalibration(filepath.Join(dir, classifier.CalibrationFileName(r.Model)), cal); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	again, err := Run(context.Background(), Config{Dataset: MustShipped(t), Embedder: MustLexical(t), CalibrationDir: dir, TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	if again.Model != r.Model || again.Thresholds != r.Calibration.Thresholds || !strings.HasPrefix(again.ThresholdsSource, "calibration:") {
		t.Errorf("second run: model %s thresholds %+v from %s; want %+v from the calibration file", again.Model, again.Thresholds, again.ThresholdsSource, r.Calibration.Thresholds)
	}
	// The throw-away store is gone.
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("Run left %v in its temp dir", left)
	}
}

func TestRunOptionsAndErrors(t *testing.T) {
	ctx := context.Background()
	d := MustParseDataset(t,
		`{"id":"m","text":"rg please, grep -r is slow","expected":"tool.use-ripgrep","kind":"match","acceptable":["tool.use-ripgrep"]}`,
		`{"id":"n","text":"that's wrong","expected":null,"kind":"new","acceptable":[]}`)
	thr := classifier.Thresholds{Auto: 0.2, Confirm: 0.1}
	r, err := Run(ctx, Config{Dataset: d, Embedder: MustLexical(t), Thresholds: &thr, Guard: &classifier.Guard{}, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if r.Thresholds != thr || r.ThresholdsSource != classifier.SourceOptions || r.Guard != (classifier.Guard{}) {
		t.Errorf("thresholds %+v from %s, guard %+v", r.Thresholds, r.ThresholdsSource, r.Guard)
	}
	if r.Results[0].Top != "tool.use-ripgrep" || r.Results[0].Decision != classifier.DecisionAutoMatch {
		t.Errorf("item m: %+v", r.Results[0])
	}

	other := registry.Default()
	small, err := registry.Parse([]byte("version: 1\nrules:\n  - rule_id: tool.x\n    category: tool_preference\n    severity: must\n    template: \"Use x\"\n"), "small")
	if err != nil {
		t.Fatal(err)
	}
	bad := classifier.Thresholds{Auto: 0.2, Confirm: 0.5}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no dataset", Config{Embedder: MustLexical(t)}, "needs a dataset"},
		{"no embedder", Config{Dataset: d}, "needs an embedder"},
		{"rule not in registry", Config{Dataset: d, Registry: small, Embedder: MustLexical(t)}, `rule "tool.use-ripgrep" is not in registry small`},
		{"bad thresholds", Config{Dataset: d, Registry: other, Embedder: MustLexical(t), Thresholds: &bad}, "confirm = 0.5 is above auto"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.TempDir = t.TempDir()
			_, err := Run(ctx, tc.cfg)
			if engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run: %v; want EINVALID mentioning %q", err, tc.want)
			}
		})
	}
}
