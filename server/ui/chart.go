package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// Chart geometry, in SVG user units.
const (
	chartW, chartH        = 640.0, 200.0
	chartLeft, chartRight = 40.0, 10.0
	chartTop, chartBottom = 10.0, 24.0
	samplesPerSegment     = 24
	minChartSpan          = 10 * time.Minute
)

// chart is a rule's confidence over time, ready for the SVG template: the
// Beta posterior mean after each event, decaying (exp(−days/τ)) from each
// correction until the next, up to now.
type chart struct {
	W, H         float64
	Path         string  // the confidence line
	Threshold    float64 // y of C_min
	CMin         float64
	Markers      []marker
	YTicks       []tick
	XStart, XEnd string // the time axis' ends
	Plot         struct{ X0, X1, Y0, Y1 float64 }
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

// resets reports whether an event restarts the decay: the rule's creation
// and every event that added evidence move its last correction.
func resets(e engine.Event) bool {
	return e.EventType == engine.EventCreation || e.Polarity != 0
}

// confidenceChart draws the events of a rule (in the order recorded) up
// to now under cfg. It returns nil when there is no event.
func confidenceChart(r engine.Rule, events []engine.Event, cfg engine.Config, now time.Time) *chart {
	if len(events) == 0 {
		return nil
	}
	t := cfg.For(r.Category)
	start := events[0].At
	for _, e := range events {
		if e.At.Before(start) {
			start = e.At
		}
	}
	end := now
	if end.Before(events[len(events)-1].At) {
		end = events[len(events)-1].At
	}
	if end.Sub(start) < minChartSpan { // a young rule: the axis shows the last minChartSpan
		start = end.Add(-minChartSpan)
	}
	c := &chart{W: chartW, H: chartH, CMin: t.CMin}
	c.Plot.X0, c.Plot.X1, c.Plot.Y0, c.Plot.Y1 = chartLeft, chartW-chartRight, chartTop, chartH-chartBottom
	x := func(at time.Time) float64 {
		return c.Plot.X0 + (c.Plot.X1-c.Plot.X0)*float64(at.Sub(start))/float64(end.Sub(start))
	}
	y := func(v float64) float64 { return c.Plot.Y1 - (c.Plot.Y1-c.Plot.Y0)*v }
	// conf is the confidence at time at of evidence (alpha, beta) whose last
	// correction was at last: Assess's confidence_final.
	conf := func(alpha, beta float64, last, at time.Time) float64 {
		return engine.ConfidenceBase(alpha, beta) * engine.DecayFactor(engine.DaysBetween(last, at), t.TauDays)
	}
	var b strings.Builder
	alpha, beta, last := events[0].Alpha, events[0].Beta, events[0].At
	pen := func(at time.Time) {
		cmd := "L"
		if b.Len() == 0 {
			cmd = "M"
		}
		fmt.Fprintf(&b, "%s%.1f %.1f ", cmd, x(at), y(conf(alpha, beta, last, at)))
	}
	for i, e := range events {
		if i > 0 {
			// The decay from the previous event to this one.
			prev := events[i-1].At
			for k := 1; k <= samplesPerSegment; k++ {
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
		c.Markers = append(c.Markers, marker{X: x(e.At), Y: y(conf(alpha, beta, last, e.At)), Type: string(e.EventType),
			Label: fmt.Sprintf("%s %s: %.4f", e.At.UTC().Format("2006-01-02 15:04"), e.EventType, conf(alpha, beta, last, e.At))})
	}
	lastAt := events[len(events)-1].At
	for k := 1; k <= samplesPerSegment && lastAt.Before(now); k++ {
		pen(lastAt.Add(time.Duration(float64(now.Sub(lastAt)) * float64(k) / samplesPerSegment)))
	}
	c.Path = strings.TrimSpace(b.String())
	c.Threshold = y(t.CMin)
	for _, v := range []float64{0, 0.5, 1} {
		c.YTicks = append(c.YTicks, tick{Y: y(v), Label: fmt.Sprintf("%.1f", v)})
	}
	layout := "2006-01-02"
	if end.Sub(start) < 48*time.Hour {
		layout = "2006-01-02 15:04"
	}
	c.XStart, c.XEnd = start.UTC().Format(layout), end.UTC().Format(layout)
	return c
}
