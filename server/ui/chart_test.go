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
		if math.Abs(got-want) > 0.01 || math.Abs(x-c.Plot.X1) > 0.05 {
			t.Errorf("day %d: chart ends at (%.1f, %.4f), want (%.1f, %.4f)", days, x, got, c.Plot.X1, want)
		}
		if len(c.Markers) != len(events) {
			t.Errorf("day %d: %d markers for %d events", days, len(c.Markers), len(events))
		}
	}
	if confidenceChart(r, nil, cfg, t0) != nil {
		t.Error("a chart of no events")
	}
}

func TestChartOfAYoungRuleFillsTheAxis(t *testing.T) {
	cfg := engine.DefaultConfig()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	r := engine.NewRule("tool.x", "tool_preference", engine.SeverityShould, "use x", engine.Scope{}, cfg, now.Add(-2*time.Minute))
	events := []engine.Event{{EventType: engine.EventCreation, Alpha: r.Alpha, Beta: r.Beta, At: now.Add(-2 * time.Minute)}}
	r.ApplyEvidence(engine.Reinforce, now.Add(-time.Minute))
	events = append(events, engine.Event{EventType: engine.EventReinforcement, Polarity: engine.Reinforce, Alpha: r.Alpha, Beta: r.Beta, At: now.Add(-time.Minute)})
	c := confidenceChart(r, events, cfg, now)
	for _, m := range c.Markers {
		if m.X < c.Plot.X0 || m.X > c.Plot.X1 || m.Y < c.Plot.Y0 || m.Y > c.Plot.Y1 {
			t.Errorf("marker %+v outside the plot %+v", m, c.Plot)
		}
	}
	if x, _ := lastPoint(t, c.Path); math.Abs(x-c.Plot.X1) > 0.05 {
		t.Errorf("the line ends at x=%.1f, not at now (%.1f)", x, c.Plot.X1)
	}
	if first := c.Markers[0].X; first < c.Plot.X0+(c.Plot.X1-c.Plot.X0)/2 {
		t.Errorf("events two minutes old are drawn at x=%.1f, in the older half of the axis", first)
	}
}
