package eval

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plot files WritePlots writes, in the order report.md shows them.
const (
	PlotPR       = "pr_curve.png"
	PlotSweep    = "threshold_sweep.png"
	plotHistFmt  = "hist_%s.png"
	plotWidth    = 16 * vg.Centimeter
	plotHeight   = 11 * vg.Centimeter
	histBins     = 25 // over [0, 1]
	markerRadius = 4
)

// HistPlot is the file name of the score histogram of kind.
func HistPlot(kind string) string { return fmt.Sprintf(plotHistFmt, kind) }

var (
	colAuto    = color.RGBA{R: 200, G: 30, B: 30, A: 255}
	colConfirm = color.RGBA{R: 230, G: 140, B: 0, A: 255}
	colOn      = color.RGBA{R: 20, G: 80, B: 200, A: 255}
	colOff     = color.RGBA{R: 120, G: 120, B: 120, A: 255}
	colRecall  = color.RGBA{R: 30, G: 150, B: 60, A: 255}
	colRight   = color.RGBA{R: 120, G: 200, B: 120, A: 255}
	colWrong   = color.RGBA{R: 210, G: 60, B: 60, A: 255}
)

// WritePlots writes the PNG plots of r into dir (created if needed) and
// returns their file names: the precision/recall curve over the sweep (guard
// on and off) with the auto and confirm thresholds marked, precision, recall
// and F1 against the threshold over the sweep, and one histogram of top
// scores per kind (stacked: top rule acceptable or not; for contradictions,
// the contradicted rule read as a contradiction or not). Errors are the file system's or gonum's.
func WritePlots(dir string, r Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	save := func(p *plot.Plot, name string) error {
		if err := p.Save(plotWidth, plotHeight, filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("writing plot %s: %w", name, err)
		}
		files = append(files, name)
		return nil
	}
	if err := save(prCurve(r), PlotPR); err != nil {
		return files, err
	}
	if err := save(sweepPlot(r), PlotSweep); err != nil {
		return files, err
	}
	for _, k := range Kinds {
		if err := save(histogram(r, k), HistPlot(k)); err != nil {
			return files, err
		}
	}
	return files, nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	return p
}

func line(xys plotter.XYs, c color.Color, dashed bool) *plotter.Line {
	l, _ := plotter.NewLine(xys) // only fails on NaN or Inf, which metrics never are
	l.Color, l.Width = c, vg.Points(1.5)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	return l
}

// prCurve draws precision against recall over every threshold 0.00-1.00
// (wider than the report's sweep, so that low-scoring embedders show their
// whole curve), leaving out thresholds without a prediction.
func prCurve(r Report) *plot.Plot {
	p := newPlot(fmt.Sprintf("Precision/recall, thresholds 0.00-1.00 (%s)", r.Embedder), "recall", "precision")
	for _, s := range []struct {
		guard  bool
		c      color.Color
		dashed bool
		name   string
	}{{true, colOn, false, "guard on"}, {false, colOff, true, "guard off"}} {
		var xys plotter.XYs
		for _, pt := range Sweep(r.Results, s.guard, 0, 100) {
			if pt.Predictions > 0 {
				xys = append(xys, plotter.XY{X: pt.Recall, Y: pt.Precision})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l := line(xys, s.c, s.dashed)
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	for _, m := range []struct {
		t     float64
		guard bool
		c     color.Color
		name  string
	}{{r.Thresholds.Auto, true, colAuto, "auto"}, {r.Thresholds.Confirm, false, colConfirm, "confirm"}} {
		at, _ := Score(r.Results, nil, m.t, m.guard)
		sc, _ := plotter.NewScatter(plotter.XYs{{X: at.Recall, Y: at.Precision}})
		sc.GlyphStyle = draw.GlyphStyle{Color: m.c, Radius: vg.Points(markerRadius), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("%s %.2f: P %.2f R %.2f", m.name, m.t, at.Precision, at.Recall), sc)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1.05
	return p
}

func sweepPlot(r Report) *plot.Plot {
	p := newPlot("Precision, recall and F1 against the auto threshold (guard on)", "threshold", "")
	for _, s := range []struct {
		name string
		c    color.Color
		get  func(SweepPoint) float64
	}{
		{"precision", colOn, func(pt SweepPoint) float64 { return pt.Precision }},
		{"recall", colRecall, func(pt SweepPoint) float64 { return pt.Recall }},
		{"F1", colOff, func(pt SweepPoint) float64 { return pt.F1 }},
	} {
		var xys plotter.XYs
		for _, pt := range r.Sweep {
			if pt.Predictions > 0 || s.name == "recall" { // precision and F1 are undefined without predictions
				xys = append(xys, plotter.XY{X: pt.Threshold, Y: s.get(pt)})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l := line(xys, s.c, false)
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	markThresholds(p, r, 1.05)
	p.Y.Min, p.Y.Max = 0, 1.05
	return p
}

// markThresholds draws the auto and confirm thresholds as vertical lines.
func markThresholds(p *plot.Plot, r Report, top float64) {
	for _, m := range []struct {
		t    float64
		c    color.Color
		name string
	}{{r.Thresholds.Auto, colAuto, "auto"}, {r.Thresholds.Confirm, colConfirm, "confirm"}} {
		l := line(plotter.XYs{{X: m.t, Y: 0}, {X: m.t, Y: top}}, m.c, true)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s %.2f", m.name, m.t), l)
	}
}

func histogram(r Report, kind string) *plot.Plot {
	p := newPlot(fmt.Sprintf("Top scores of %s items (%s)", kind, r.Embedder), "top-1 score", "items")
	var right, wrong [histBins]float64
	peak := 1.0
	for _, s := range r.Results {
		if s.Kind != kind || s.Top == "" {
			continue
		}
		b := min(max(int(s.Score*histBins), 0), histBins-1)
		if s.Accepts(s.Top) && (kind != KindContradiction || s.Counters()) {
			right[b]++
		} else {
			wrong[b]++
		}
	}
	// Stacked: the total in green, the wrong ones drawn over its lower part in red.
	var total [histBins]float64
	for i := range total {
		total[i] = right[i] + wrong[i]
		peak = max(peak, total[i])
	}
	rightName, wrongName := "top rule acceptable", "top rule wrong (every new item)"
	if kind == KindContradiction {
		rightName, wrongName = "its rule, read as a contradiction", "another rule, or read as a reinforcement"
	}
	for _, h := range []struct {
		counts *[histBins]float64
		c      color.Color
		name   string
	}{{&total, colRight, rightName}, {&wrong, colWrong, wrongName}} {
		bins := make([]plotter.HistogramBin, histBins)
		for i := range bins {
			bins[i] = plotter.HistogramBin{Min: float64(i) / histBins, Max: float64(i+1) / histBins, Weight: h.counts[i]}
		}
		hist := &plotter.Histogram{Bins: bins, Width: 1.0 / histBins, FillColor: h.c, LineStyle: draw.LineStyle{Color: color.White, Width: vg.Points(0.5)}}
		p.Add(hist)
		p.Legend.Add(h.name, hist)
	}
	markThresholds(p, r, peak)
	p.X.Min, p.X.Max = 0, 1
	return p
}
