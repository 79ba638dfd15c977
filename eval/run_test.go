package eval

import (
	"bytes"
	"context"
	"encoding/json"
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
	if r.Counts[KindMatch] != 120 || r.Counts[KindNew] != 50 || r.Counts[KindAmbiguous] != 30 || len(r.Results) != 200 {
		t.Errorf("counts %v, %d results", r.Counts, len(r.Results))
	}
	for name, m := range map[string]Metrics{"overall": r.Overall, "guard off": r.GuardOff.Overall} {
		checkMetrics(t, name, m)
		if m.TP+m.FN != 150 {
			t.Errorf("%s: TP %d + FN %d != 150 match and ambiguous items", name, m.TP, m.FN)
		}
	}
	if len(r.ByCategory) != 4 {
		t.Errorf("by_category has %d categories, want the pack's 4", len(r.ByCategory))
	}
	for c, m := range r.ByCategory {
		checkMetrics(t, c, m)
	}
	if len(r.Sweep) != 66 || len(r.GuardOff.Sweep) != 66 {
		t.Errorf("sweeps of %d and %d points", len(r.Sweep), len(r.GuardOff.Sweep))
	}
	for i, p := range r.Sweep {
		if p.TP+p.FN != 150 || (i > 0 && p.Recall > r.Sweep[i-1].Recall) {
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
	// The predictions (all scores plus the guard's verdict) agree with the
	// classifier's own decisions at the report's thresholds.
	for _, s := range r.Results {
		if (s.Decision == classifier.DecisionAutoMatch) != (s.Prediction(r.Thresholds.Auto, true) != "") ||
			(s.DecisionGuardOff == classifier.DecisionAutoMatch) != (s.Prediction(r.Thresholds.Auto, false) != "") {
			t.Errorf("%s: decisions %s/%s but score %.4f blocked %v at auto %.2f", s.ID, s.Decision, s.DecisionGuardOff, s.Score, s.Blocked, r.Thresholds.Auto)
		}
		if s.Kind != KindNew && (s.ExpectedRank < 1 || s.ExpectedRank > 29) {
			t.Errorf("%s: expected rank %d", s.ID, s.ExpectedRank)
		}
	}
	if c := r.Calibration; c.Method != "dev/test split" || c.Dev.Items != 100 || c.Test.Items != 100 || c.ECE < 0 || c.ECE > 1 {
		t.Errorf("calibration %+v", c)
	}
	if r.LowOverlap.MatchItems != 120 || 3*r.LowOverlap.LowOverlap < 120 {
		t.Errorf("low overlap %+v", r.LowOverlap)
	}
	var text, md bytes.Buffer
	WriteText(&text, r)
	WriteMarkdown(&md, r, nil)
	for _, want := range []string{"overall", "tool_preference", "paper", "Bands", "Ablation", "Calibration", "false positives"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q", want)
		}
	}
	t.Log("\n" + text.String())
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
	for _, k := range []string{"embedder", "model", "thresholds", "overall", "by_category", "bands", "sweep", "calibration", "guard_off", "ablation", "worst_errors", "paper"} {
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
