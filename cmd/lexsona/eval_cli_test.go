package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	for _, bad := range []string{"0.5", "a,b", "NaN,0.2", "1.2,0.3", "0.3,0.5", "0.5,0.3,0.1"} {
		code, _, errs := c.run("eval", "--thresholds", bad)
		if code != 2 || !strings.Contains(errs, "--thresholds") {
			t.Errorf("--thresholds %s: exit %d, stderr %q", bad, code, errs)
		}
	}
	out := filepath.Join(t.TempDir(), "cal.json")
	cal := c.mustJSON("eval", "calibrate", "--out-file", out)
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
