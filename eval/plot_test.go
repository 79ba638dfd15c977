package eval

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
)

func TestWriteDirPlotsAreValidPNGs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	files, err := WriteDir(dir, MustLexicalReport(t))
	if err != nil {
		t.Fatalf("WriteDir: %v", err)
	}
	want := []string{PlotPR, PlotSweep, HistPlot(KindMatch), HistPlot(KindNew), HistPlot(KindAmbiguous), HistPlot(KindContradiction), ReportMarkdown, ReportJSON}
	if strings.Join(files, ",") != strings.Join(want, ",") {
		t.Errorf("files = %v, want %v", files, want)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files[:6] {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s is not a PNG: %v", f, err)
			continue
		}
		if b := img.Bounds(); b.Dx() < 200 || b.Dy() < 100 {
			t.Errorf("%s is %dx%d", f, b.Dx(), b.Dy())
		}
		if !bytes.Contains(md, []byte("]("+f+")")) {
			t.Errorf("report.md does not embed %s", f)
		}
	}
	var r Report
	data, _ := os.ReadFile(filepath.Join(dir, ReportJSON))
	if err := json.Unmarshal(data, &r); err != nil || len(r.Sweep) != 66 {
		t.Errorf("report.json: %v (%d sweep points)", err, len(r.Sweep))
	}
	if testenv.Knob(testenv.EvalKeepEnv) != "" {
		t.Logf("plots in %s", dir)
		os.CopyFS(testenv.Knob(testenv.EvalKeepEnv), os.DirFS(dir))
	}
}
