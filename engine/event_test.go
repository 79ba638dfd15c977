package engine

import (
	"strings"
	"testing"
	"time"
)

func TestValidateCorrectionTime(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		at   time.Time
		want string // "" for no error
	}{
		{"now", now, ""},
		{"backfill a year ago", now.AddDate(-1, 0, 0), ""},
		{"clock a little ahead", now.Add(MaxClockSkew), ""},
		{"just past the skew", now.Add(MaxClockSkew + time.Second), "correction time 2026-11-21T12:05:01Z is in the future (the clock here says 2026-11-21T12:00:00Z)"},
		{"years ahead, other zone", time.Date(2030, 1, 1, 1, 0, 0, 0, time.FixedZone("CET", 3600)), "correction time 2030-01-01T00:00:00Z is in the future"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateCorrectionTime(tc.at, now)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				return
			}
			if ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), tc.want) {
				t.Fatalf("got %v (code %s), want %s containing %q", err, ErrorCode(err), EINVALID, tc.want)
			}
		})
	}
}
