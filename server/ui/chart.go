package ui

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// Chart geometry, in SVG user units.
const (
	chartW, chartH        = 640.0, 210.0
	chartLeft, chartRight = 46.0, 14.0
	chartTop, chartBottom = 30.0, 34.0
	// legendGap is the space between the legend's baseline and the plot:
	// the legend sits in the top margin, above every point the plot draws,
	// whatever the font size a screen gives it.
	legendGap = 9.0
	// chartPad keeps the first and last points off the plot's frame.
	chartPad          = 12.0
	samplesPerSegment = 24
	// charWidth is about the width of a digit of an axis label (13px);
	// labelSpace the least space between two labels.
	charWidth, labelSpace = 7.4, 10.0
	// minStep is the least distance between two instants on a linear
	// time axis; gapUnits the parts of the whole span a gap is measured in
	// on the other (see axis).
	minStep, gapUnits = 14.0, 200.0
)

// chart is a rule's confidence over time, ready for the SVG template: the
// Beta posterior mean after each event, decaying (exp(−days/τ)) from each
// correction until the next, up to now.
type chart struct {
	W, H      float64
	Path      string  // the confidence line
	Threshold float64 // y of C_min
	CMin      float64
	// LegendY is the baseline of the legend naming the dashed activation
	// line, in the margin above the plot (never over the line or a point).
	LegendY float64
	Markers []marker
	YTicks  []tick
	XTicks  []xtick
	// Stretched is true when the time axis is not linear: long quiet
	// periods are drawn shorter than their duration (see axis).
	Stretched bool
	Plot      struct{ X0, X1, Y0, Y1 float64 }
}

type marker struct {
	X, Y  float64
	Type  string
	Label string
}

type tick struct {
	Y     float64
	Label string
}

// xtick is an instant of the time axis: a tick at X and, when Label is
// set, a label at (LabelX, LabelY). Mid ticks are neither the first nor
// the last (a narrow screen hides their labels).
type xtick struct {
	X, LabelX, LabelY float64
	Label             string
	Anchor            string // start, middle or end
	Mid               bool
}

// resets reports whether an event restarts the decay: the rule's creation
// and every event that added evidence move its last correction.
func resets(e engine.Event) bool {
	return e.EventType == engine.EventCreation || e.Polarity != 0
}

// axis maps times to x. Its breakpoints are the distinct instants of the
// events and now. When a linear axis keeps every two of them at least
// minStep apart, it is linear; otherwise (a burst of corrections after a
// quiet month) each gap between two of them gets a width that grows with
// its duration, as two steps plus log2(1 + duration/unit) with unit the
// whole span / gapUnits: the burst gets room of its own, every event
// stays apart from the next, and the order and the relative length of
// gaps are kept.
type axis struct {
	at        []time.Time // breakpoints, ascending
	x         []float64   // their x
	stretched bool        // not linear
}

func newAxis(instants []time.Time, x0, x1 float64) *axis {
	a := &axis{}
	for _, t := range instants {
		if len(a.at) == 0 || t.After(a.at[len(a.at)-1]) {
			a.at = append(a.at, t)
		}
	}
	if len(a.at) == 1 {
		a.x = []float64{x1}
		return a
	}
	span := float64(a.at[len(a.at)-1].Sub(a.at[0]))
	w := make([]float64, len(a.at)-1)
	linear := true
	for i := range w {
		w[i] = float64(a.at[i+1].Sub(a.at[i]))
		linear = linear && (x1-x0)*w[i]/span >= minStep
	}
	if a.stretched = !linear; a.stretched {
		for i := range w {
			w[i] = 2 + math.Log2(1+w[i]/(span/gapUnits))
		}
	}
	total := 0.0
	for _, v := range w {
		total += v
	}
	a.x = append(a.x, x0)
	for i := range w {
		a.x = append(a.x, a.x[i]+(x1-x0)*w[i]/total)
	}
	a.x[len(a.x)-1] = x1
	return a
}

// of returns the x of t, linear between the breakpoints around it.
func (a *axis) of(t time.Time) float64 {
	n := len(a.at)
	if n == 1 || !t.After(a.at[0]) {
		return a.x[0]
	}
	for i := 1; i < n; i++ {
		if !t.After(a.at[i]) {
			f := float64(t.Sub(a.at[i-1])) / float64(a.at[i].Sub(a.at[i-1]))
			return a.x[i-1] + (a.x[i]-a.x[i-1])*f
		}
	}
	return a.x[n-1]
}

// confidenceChart draws the events of a rule (in the order recorded) up
// to now under cfg. It returns nil when there is no event.
func confidenceChart(r engine.Rule, events []engine.Event, cfg engine.Config, now time.Time) *chart {
	if len(events) == 0 {
		return nil
	}
	t := cfg.For(r.Category)
	c := &chart{W: chartW, H: chartH, CMin: t.CMin}
	c.Plot.X0, c.Plot.X1, c.Plot.Y0, c.Plot.Y1 = chartLeft, chartW-chartRight, chartTop, chartH-chartBottom
	end := now
	if last := events[len(events)-1].At; end.Before(last) {
		end = last
	}
	instants := make([]time.Time, 0, len(events)+1)
	for _, e := range events {
		instants = append(instants, e.At)
	}
	instants = append(instants, end)
	slices.SortFunc(instants, time.Time.Compare) // a backfill may record events out of time order
	ax := newAxis(instants, c.Plot.X0+chartPad, c.Plot.X1-chartPad)
	c.Stretched = ax.stretched
	y := func(v float64) float64 { return c.Plot.Y1 - (c.Plot.Y1-c.Plot.Y0)*v }
	var b strings.Builder
	alpha, beta, last := events[0].Alpha, events[0].Beta, events[0].At
	pen := func(at time.Time) {
		cmd := "L"
		if b.Len() == 0 {
			cmd = "M"
		}
		fmt.Fprintf(&b, "%s%.1f %.1f ", cmd, ax.of(at), y(engine.ConfidenceAt(alpha, beta, last, at, t.TauDays)))
	}
	for i, e := range events {
		if i > 0 {
			// The decay from the previous event to this one.
			prev := events[i-1].At
			for k := 1; k <= samplesPerSegment && e.At.After(prev); k++ {
				pen(prev.Add(time.Duration(float64(e.At.Sub(prev)) * float64(k) / samplesPerSegment)))
			}
		}
		if e.Alpha+e.Beta > 0 {
			alpha, beta = e.Alpha, e.Beta
		}
		if resets(e) {
			last = e.At
		}
		pen(e.At)
		v := engine.ConfidenceAt(alpha, beta, last, e.At, t.TauDays)
		c.Markers = append(c.Markers, marker{X: ax.of(e.At), Y: y(v), Type: string(e.EventType),
			Label: fmt.Sprintf("%s %s: %.4f", e.At.UTC().Format("2006-01-02 15:04:05"), e.EventType, v)})
	}
	lastAt := events[len(events)-1].At
	for k := 1; k <= samplesPerSegment && lastAt.Before(end); k++ {
		pen(lastAt.Add(time.Duration(float64(end.Sub(lastAt)) * float64(k) / samplesPerSegment)))
	}
	c.Path = strings.TrimSpace(b.String())
	c.Threshold = y(t.CMin)
	c.LegendY = c.Plot.Y0 - legendGap
	for _, v := range []float64{0, 0.5, 1} {
		c.YTicks = append(c.YTicks, tick{Y: y(v), Label: fmt.Sprintf("%.1f", v)})
	}
	c.XTicks = timeTicks(ax, c.Plot.Y1+16, c.Plot.X0, c.Plot.X1)
	return c
}

// timeTicks marks every instant of the axis (a tick each) and labels the
// first, the last and, between them, every instant whose label fits
// between the labels kept before it and the last one and reads otherwise
// than the label before it (instants in one second, or one minute, or one
// day, as the span shows them, get one label). A label shows the date where
// it changes from the label before it (always on the first) and the time
// of day when the span is under two days (with seconds under ten minutes).
func timeTicks(ax *axis, labelY, x0, x1 float64) []xtick {
	n := len(ax.at)
	span := ax.at[n-1].Sub(ax.at[0])
	clock := ""
	switch {
	case span < 10*time.Minute:
		clock = "15:04:05"
	case span < 48*time.Hour:
		clock = "15:04"
	}
	day := func(i int) string { return ax.at[i].UTC().Format("2006-01-02") }
	// label is instant i's label after a label on day prevDay.
	label := func(i int, prevDay string) string {
		switch {
		case clock == "":
			return day(i)
		case day(i) != prevDay:
			return day(i) + " " + ax.at[i].UTC().Format(clock)
		}
		return ax.at[i].UTC().Format(clock)
	}
	// full is instant i as its label reads at this resolution, date included:
	// two instants that read the same get one label.
	full := func(i int) string { return label(i, "") }
	width := func(l string) float64 { return charWidth*float64(len(l)) + labelSpace }
	out := []xtick{{X: ax.x[0], LabelX: x0, LabelY: labelY, Label: label(0, ""), Anchor: "start"}}
	if n == 1 {
		return out
	}
	// Where the labels kept so far end, their last day, the last one's
	// instant and tick.
	right, prevDay, prevFull, prev := x0+width(out[0].Label), day(0), full(0), 0
	for i := 1; i < n-1; i++ {
		t := xtick{X: ax.x[i], LabelX: ax.x[i], LabelY: labelY, Anchor: "middle", Mid: true}
		l := label(i, prevDay)
		w := width(l)
		if full(i) != prevFull && t.X-w/2 >= right && t.X+w/2 <= x1-width(label(n-1, day(i))) {
			t.Label, right, prevDay, prevFull, prev = l, t.X+w/2, day(i), full(i), i
		}
		out = append(out, t)
	}
	last := xtick{X: ax.x[n-1], LabelX: x1, LabelY: labelY, Label: label(n-1, prevDay), Anchor: "end"}
	if full(n-1) == prevFull {
		// The end reads as the label before it: that label moves to the end
		// (the first keeps its own: then the whole span reads as one instant).
		if prev == 0 {
			last.Label = ""
		} else {
			out[prev].Label = ""
			last.Label = label(n-1, dayOfLabelBefore(out, prev, day))
		}
	}
	return append(out, last)
}

// dayOfLabelBefore is the day of the last label of ticks before index i
// (the first tick always has one).
func dayOfLabelBefore(ticks []xtick, i int, day func(int) string) string {
	for j := i - 1; j > 0; j-- {
		if ticks[j].Label != "" {
			return day(j)
		}
	}
	return day(0)
}
