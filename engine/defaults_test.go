package engine

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRuleComplete(t *testing.T) {
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.FixedZone("x", 3600))
	cfg := DefaultConfig()
	made := NewRule("tool.x", "tool_preference", SeverityShould, "x", Scope{}, cfg, at)
	for _, tc := range []struct {
		name string
		in   Rule
		want Rule
	}{
		{"bare rule gets NewRule's fields", Rule{RuleID: "tool.x", Category: "tool_preference", Severity: SeverityShould, Text: "x"}, made},
		{"NewRule's rule stays", made, made},
		{"own evidence and times stay",
			Rule{Alpha: 3, Beta: 1, FirstSeen: at.Add(-time.Hour), Status: StatusCandidate, Source: SourceCorrection},
			Rule{Alpha: 3, Beta: 1, FirstSeen: at.Add(-time.Hour), LastCorrection: at.Add(-time.Hour), Status: StatusCandidate, Source: SourceCorrection}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in
			got.Complete(cfg, at)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Complete (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEventTypePolarity(t *testing.T) {
	for _, tc := range []struct {
		t    EventType
		own  Polarity
		want Polarity
		code string
	}{
		{EventReinforcement, 0, Reinforce, ""},
		{EventReinforcement, Counter, Reinforce, ""},
		{EventCounterexample, 0, Counter, ""},
		{EventConfirmation, Counter, Counter, ""},
		{EventConfirmation, Reinforce, Reinforce, ""},
		{EventConfirmation, 0, 0, EINVALID},
		{EventCreation, Reinforce, 0, ""},
		{EventManualOverride, 0, 0, ""},
		{EventPromotion, 0, 0, ""},
		{EventViolation, 0, 0, ""},
		{"celebration", 0, 0, EINVALID},
	} {
		got, err := tc.t.Polarity(tc.own)
		if ErrorCode(err) != tc.code && !(tc.code == "" && err == nil) || got != tc.want {
			t.Errorf("%s.Polarity(%d) = %d, %v: want %d, code %q", tc.t, tc.own, got, err, tc.want, tc.code)
		}
		if tc.t.Known() != (tc.t != "celebration") {
			t.Errorf("%s.Known() = %v", tc.t, tc.t.Known())
		}
	}
}
