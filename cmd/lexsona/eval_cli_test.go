package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
)

func TestEvalCLI(t *testing.T) {
	c := newCLI(t)
	t.Setenv("LEXSONA_DATA", t.TempDir())
	m := c.mustJSON("eval", "--thresholds", "0.40,0.24")
	th := m["thresholds"].(map[string]any)
	if th["auto"] != 0.4 || th["confirm"] != 0.24 || m["embedder"] != "lexical" || len(m["sweep"].([]any)) != 66 {
		t.Errorf("eval --json: thresholds %v embedder %v", th, m["embedder"])
	}
	if _, err := os.Stat(c.db); err == nil {
		t.Error("eval created the user's database")
	}
	for _, k := range []string{"targets", "paper_comparison", "cross_validation", "splits", "polarity"} {
		if m[k] == nil {
			t.Errorf("eval --json lacks %q", k)
		}
	}
	for _, bad := range []string{"0.5", "a,b", "NaN,0.2", "1.2,0.3", "0.3,0.5", "0.5,0.3,0.1"} {
		code, _, errs := c.run("eval", "--thresholds", bad)
		if code != 2 || !strings.Contains(errs, "--thresholds") {
			t.Errorf("--thresholds %s: exit %d, stderr %q", bad, code, errs)
		}
	}
	out := filepath.Join(t.TempDir(), "cal.json")
	cal := c.mustJSON("eval", "calibrate", "--out-file", out)
	if tg, _ := cal["targets"].(map[string]any); tg == nil || len(tg["targets"].([]any)) != 4 {
		t.Errorf("calibrate --json: targets %v", cal["targets"])
	}
	if cal["written"] != true || cal["file"] != out {
		t.Errorf("calibrate: %v", cal)
	}
	var file struct {
		Model      string             `json:"model"`
		Thresholds map[string]float64 `json:"thresholds"`
	}
	data, err := os.ReadFile(out)
	if err != nil || json.Unmarshal(data, &file) != nil || file.Model != cal["model"] {
		t.Errorf("calibration file: %v %s", err, data)
	}
	if code, _, _ := c.run("eval", "calibrate", "--target-auto", "0"); code != 2 {
		t.Errorf("--target-auto 0: exit %d", code)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := c.run("eval", "--out", dir); code != 0 {
		t.Fatalf("eval --out: %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.md")); err != nil {
		t.Error(err)
	}
}

// TestEvalCLIRealModel runs `lexsona eval --embedder ort --model-dir DIR` on
// the real all-MiniLM-L6-v2 (skipping, or failing under
// LEXSONA_REQUIRE_REAL_MODEL=1, when it is absent) and checks that the text
// report leads with the held-out targets and shows the paper's table.
func TestEvalCLIRealModel(t *testing.T) {
	dir := testenv.RealModelDir(t)
	c := newCLI(t)
	t.Setenv("LEXSONA_DATA", t.TempDir()) // no calibration file: the classifier's defaults
	code, out, errs := c.run("eval", "--embedder", "ort", "--model-dir", dir)
	if code != 0 {
		t.Fatalf("lexsona eval --embedder ort --model-dir %s: exit %d\n%s", dir, code, errs)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 5 || !strings.HasPrefix(lines[0], "LexSona eval: ort all-MiniLM-L6-v2@") || !strings.HasPrefix(lines[3], "Targets on the held-out test split") {
		t.Errorf("report starts:\n%s", strings.Join(lines[:min(5, len(lines))], "\n"))
	}
	for _, want := range []string{"auto precision", "auto recall", "polarity errors", "ECE after calibration", "P@0.85", "P@0.75", "Polarity at", "5-fold cross-validation"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// eval stream --real replays the real corpus's held-out repositories from
// their derived figures, no text needed, and says what the eval package's
// golden figures say.
func TestEvalStreamRealFromDerived(t *testing.T) {
	model := testenv.RealModelDir(t)
	root := testenv.RepoRoot(t)
	var want struct {
		OrdinaryInbox float64 `json:"ordinary_inbox"`
		Ordinary      float64 `json:"ordinary"`
		RightFirst    float64 `json:"right_first"`
		Fit           float64 `json:"fit"`
	}
	data, err := os.ReadFile(filepath.Join(root, "eval", "testdata", "real_figures.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	c := newCLI(t)
	m := c.mustJSON("eval", "stream", "--real", filepath.Join(root, "eval", "realprompts"), "--embedder", "ort", "--model-dir", model)
	st, _ := m["stream"].(map[string]any)
	if m["side"] != "test" || st == nil {
		t.Fatalf("eval stream --real --json: side %v, stream %v", m["side"], st)
	}
	if got := st["ordinary_inbox"]; got != want.OrdinaryInbox/want.Ordinary {
		t.Errorf("ordinary in the inbox %v, the eval package's figures say %v", got, want.OrdinaryInbox/want.Ordinary)
	}
	if got := st["right_rule_or_inbox"]; got != want.RightFirst/want.Fit {
		t.Errorf("right rule first %v, the eval package's figures say %v", got, want.RightFirst/want.Fit)
	}
	if code, _, errs := c.run("eval", "stream", "--real", root, "--side", "both"); code != 2 || !strings.Contains(errs, "--side") {
		t.Errorf("--side both: exit %d, stderr %q", code, errs)
	}
}
