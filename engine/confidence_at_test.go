package engine

import (
	"math"
	"testing"
	"time"
)

// TestConfidenceAtIsAssessed: the confidence of evidence at a time is
// Assess's confidence_final for a rule with that evidence.
func TestConfidenceAtIsAssessed(t *testing.T) {
	last := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cfg := DefaultConfig()
	for _, tt := range []struct {
		name        string
		alpha, beta float64
		after       time.Duration
	}{
		{"at the correction", 12, 5, 0},
		{"a month later", 12, 5, 30 * 24 * time.Hour},
		{"before the correction", 3, 9, -time.Hour},
		{"no evidence", 0, 0, time.Hour},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &Rule{Category: "tool_preference", Alpha: tt.alpha, Beta: tt.beta, LastCorrection: last}
			now := last.Add(tt.after)
			want := Assess(r, cfg, now).ConfidenceFinal
			got := ConfidenceAt(tt.alpha, tt.beta, last, now, cfg.For(r.Category).TauDays)
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("ConfidenceAt = %v, Assess's confidence_final = %v", got, want)
			}
		})
	}
}
