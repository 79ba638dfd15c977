package ui

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// lastPoint returns the last "x y" of an SVG path.
func lastPoint(t *testing.T, path string) (x, y float64) {
	t.Helper()
	f := strings.Fields(path)
	if len(f) < 2 {
		t.Fatalf("path %q", path)
	}
	if _, err := fmt.Sscanf(strings.TrimLeft(f[len(f)-2], "ML")+" "+f[len(f)-1], "%g %g", &x, &y); err != nil {
		t.Fatalf("path %q: %v", path, err)
	}
	return x, y
}

func TestChartEndsAtTheRulesConfidenceNow(t *testing.T) {
	cfg := engine.DefaultConfig()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := engine.NewRule("tool.x", "tool_preference", engine.SeverityShould, "use x", engine.Scope{}, cfg, t0)
	events := []engine.Event{{EventType: engine.EventCreation, Alpha: r.Alpha, Beta: r.Beta, At: t0}}
	for i, day := range []int{3, 10, 40} {
		at := t0.Add(time.Duration(day) * 24 * time.Hour)
		r.ApplyEvidence(engine.Reinforce, at)
		events = append(events, engine.Event{EventID: int64(i + 2), EventType: engine.EventReinforcement, Polarity: engine.Reinforce,
			Alpha: r.Alpha, Beta: r.Beta, At: at})
	}
	// A manual edit does not move the last correction: the decay goes on.
	edit := t0.Add(50 * 24 * time.Hour)
	events = append(events, engine.Event{EventType: engine.EventManualOverride, Alpha: r.Alpha, Beta: r.Beta, At: edit})

	for _, days := range []int{40, 60, 400} {
		now := t0.Add(time.Duration(days) * 24 * time.Hour)
		if now.Before(edit) {
			continue
		}
		c := confidenceChart(r, events, cfg, now)
		want := engine.View(r, cfg, now).Confidence
		x, y := lastPoint(t, c.Path)
		got := (c.Plot.Y1 - y) / (c.Plot.Y1 - c.Plot.Y0)
		if math.Abs(got-want) > 0.01 || math.Abs(x-(c.Plot.X1-chartPad)) > 0.05 {
			t.Errorf("day %d: chart ends at (%.1f, %.4f), want (%.1f, %.4f)", days, x, got, c.Plot.X1-chartPad, want)
		}
		if len(c.Markers) != len(events) {
			t.Errorf("day %d: %d markers for %d events", days, len(c.Markers), len(events))
		}
	}
	if confidenceChart(r, nil, cfg, t0) != nil {
		t.Error("a chart of no events")
	}
}

// TestChartSpreadsEvents: whatever the rhythm of a rule's events — a
// young rule's within seconds, a burst of corrections a day after the
// registry created it, corrections spread evenly over weeks — every event
// is drawn inside the plot and apart from the next, a burst gets a fair
// share of the width, the line ends at now, the axis is marked as not to
// scale exactly when it is not, and no two time labels overlap.
func TestChartSpreadsEvents(t *testing.T) {
	cfg := engine.DefaultConfig()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		offsets   []time.Duration // of the events before now: creation, then reinforcements
		stretched bool
		from      int     // the first event of the burst
		minShare  float64 // the least share of the width from it to the last event
	}{
		{"young rule, events within seconds", []time.Duration{5 * time.Second, 5 * time.Second, 3 * time.Second, 2 * time.Second}, false, 0, 0.5},
		{"a burst a day after creation", []time.Duration{24 * time.Hour, 3 * time.Minute, 2 * time.Minute, time.Minute}, true, 1, 0.2},
		{"a burst at now", []time.Duration{24 * time.Hour, 23 * time.Hour, 3 * time.Minute, 2 * time.Minute, 0}, true, 2, 0.2},
		{"a year, then a burst", []time.Duration{365 * 24 * time.Hour, 2 * time.Hour, time.Hour, 50 * time.Minute}, true, 1, 0.2},
		{"evenly over weeks", []time.Duration{40 * 24 * time.Hour, 30 * 24 * time.Hour, 20 * 24 * time.Hour, 10 * 24 * time.Hour}, false, 0, 0.7},
		{"one event, now", []time.Duration{0}, false, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			first := now.Add(-tc.offsets[0])
			r := engine.NewRule("tool.x", "tool_preference", engine.SeverityShould, "use x", engine.Scope{}, cfg, first)
			events := []engine.Event{{EventType: engine.EventCreation, Alpha: r.Alpha, Beta: r.Beta, At: first}}
			for _, off := range tc.offsets[1:] {
				at := now.Add(-off)
				r.ApplyEvidence(engine.Reinforce, at)
				events = append(events, engine.Event{EventType: engine.EventReinforcement, Polarity: engine.Reinforce, Alpha: r.Alpha, Beta: r.Beta, At: at})
			}
			c := confidenceChart(r, events, cfg, now)
			for i, m := range c.Markers {
				if m.X < c.Plot.X0 || m.X > c.Plot.X1 || m.Y < c.Plot.Y0 || m.Y > c.Plot.Y1 {
					t.Errorf("marker %+v outside the plot %+v", m, c.Plot)
				}
				if i > 0 && m.X-c.Markers[i-1].X < 8 && events[i].At.After(events[i-1].At) {
					t.Errorf("events %d and %d drawn %.1f apart", i-1, i, m.X-c.Markers[i-1].X)
				}
			}
			width := c.Plot.X1 - c.Plot.X0
			if share := (c.Markers[len(c.Markers)-1].X - c.Markers[tc.from].X) / width; share < tc.minShare {
				t.Errorf("the events take %.2f of the width, want at least %.2f", share, tc.minShare)
			}
			if x, _ := lastPoint(t, c.Path); math.Abs(x-(c.Plot.X1-chartPad)) > 0.05 {
				t.Errorf("the line ends at x=%.1f, not at now (%.1f)", x, c.Plot.X1-chartPad)
			}
			if c.Stretched != tc.stretched {
				t.Errorf("stretched %v, want %v", c.Stretched, tc.stretched)
			}
			mustLabelsApart(t, c)
		})
	}
}

// mustLabelsApart fails when two time labels overlap or one leaves the
// chart; the first and the last instants are always labelled.
func mustLabelsApart(t *testing.T, c *chart) {
	t.Helper()
	if c.XTicks[0].Label == "" || c.XTicks[len(c.XTicks)-1].Label == "" {
		t.Errorf("the first or last instant has no label: %+v", c.XTicks)
	}
	prevRight := math.Inf(-1)
	for _, x := range c.XTicks {
		if x.Label == "" {
			continue
		}
		w := charWidth * float64(len(x.Label))
		left := map[string]float64{"start": x.LabelX, "middle": x.LabelX - w/2, "end": x.LabelX - w}[x.Anchor]
		if left < prevRight || left < 0 || left+w > chartW {
			t.Errorf("label %q at %.1f..%.1f overlaps the one before (ending at %.1f) or leaves the chart", x.Label, left, left+w, prevRight)
		}
		prevRight = left + w
	}
}

// chartOf is the chart of a rule created at now-offsets[0] and reinforced
// at now-offsets[i].
func chartOf(t *testing.T, now time.Time, offsets ...time.Duration) *chart {
	t.Helper()
	cfg := engine.DefaultConfig()
	first := now.Add(-offsets[0])
	r := engine.NewRule("tool.x", "tool_preference", engine.SeverityShould, "use x", engine.Scope{}, cfg, first)
	events := []engine.Event{{EventType: engine.EventCreation, Alpha: r.Alpha, Beta: r.Beta, At: first}}
	for _, off := range offsets[1:] {
		at := now.Add(-off)
		r.ApplyEvidence(engine.Reinforce, at)
		events = append(events, engine.Event{EventType: engine.EventReinforcement, Polarity: engine.Reinforce, Alpha: r.Alpha, Beta: r.Beta, At: at})
	}
	return confidenceChart(r, events, cfg, now)
}

// TestTimeLabelsDoNotRepeat: instants that read the same at the axis's
// resolution (a burst within one minute, one day, one second) get one
// label, never the same text twice in a row; the end of the span keeps
// its label.
func TestTimeLabelsDoNotRepeat(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	min, day := time.Minute, 24*time.Hour
	for _, tc := range []struct {
		name    string
		offsets []time.Duration
		endSame bool // the end reads as the start: the start's label stands for both
	}{
		{"a burst within one day, weeks after creation", []time.Duration{40 * day, 3 * time.Hour, 2 * time.Hour, time.Hour, 30 * min}, false},
		{"a burst within one minute, a day after creation", []time.Duration{day, 3*time.Hour + 50*time.Second, 3*time.Hour + 40*time.Second, 3*time.Hour + 30*time.Second, 3*time.Hour + 20*time.Second}, false},
		{"a burst within one day, ending today", []time.Duration{40 * day, 5 * time.Hour, 4 * time.Hour, 3 * time.Hour, 2 * time.Hour, time.Hour}, false},
		{"everything within one second", []time.Duration{900 * time.Millisecond, 600 * time.Millisecond, 300 * time.Millisecond}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := chartOf(t, now.Add(950*time.Millisecond), tc.offsets...)
			var labels []string
			for _, x := range c.XTicks {
				if x.Label != "" {
					labels = append(labels, x.Label)
				}
			}
			for i := 1; i < len(labels); i++ {
				if labels[i] == labels[i-1] {
					t.Errorf("label %q repeats: %q", labels[i], labels)
				}
			}
			if last := c.XTicks[len(c.XTicks)-1].Label; (last == "") != tc.endSame {
				t.Errorf("the end's label is %q (labels %q)", last, labels)
			}
		})
	}
}

// TestChartLegendAbovePlot: the legend naming the activation line is in
// the margin above the plot, so it never covers the line or a point,
// wherever the rule's confidence ends, and stays inside the chart even at
// the phone font size (22 units: about 18 above the baseline, 5 below).
func TestChartLegendAbovePlot(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for _, offsets := range [][]time.Duration{
		{time.Hour},
		{40 * 24 * time.Hour, 3 * time.Hour, 2 * time.Hour, time.Hour, 0, 0, 0, 0, 0, 0},
	} {
		c := chartOf(t, now, offsets...)
		if c.LegendY+5 > c.Plot.Y0 || c.LegendY-18 < 0 {
			t.Errorf("legend baseline %.1f: want its text between 0 and the plot's top %.1f", c.LegendY, c.Plot.Y0)
		}
		for _, m := range c.Markers {
			if m.Y-3.5 < c.Plot.Y0 {
				t.Errorf("marker %+v above the plot's top %.1f", m, c.Plot.Y0)
			}
		}
	}
}
