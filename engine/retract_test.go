package engine

import (
	"testing"
	"time"
)

func TestRetract(t *testing.T) {
	r := ruleWith(CategoryToolPreference, SeverityShould, 3, 1, t0)
	reinf := Event{EventID: 7, RuleID: r.RuleID, EventType: EventReinforcement, Polarity: Reinforce, At: t0}
	counter := Event{EventID: 8, RuleID: r.RuleID, EventType: EventCounterexample, Polarity: Counter, At: t0}
	earlier := t0.Add(-time.Hour)
	tests := []struct {
		name        string
		rule        Rule
		ev          Event
		wantAlpha   float64
		wantBeta    float64
		wantErr     bool
		wantUnstate bool
	}{
		{"a reinforcement", r, reinf, r.Alpha - 1, r.Beta, false, false},
		{"a counterexample", r, counter, r.Alpha, r.Beta - 1, false, false},
		{"a confirmation carries its polarity", r, Event{EventID: 9, RuleID: r.RuleID, EventType: EventConfirmation, Polarity: Reinforce, At: t0}, r.Alpha - 1, r.Beta, false, false},
		{"a violation carries none", r, Event{EventID: 10, RuleID: r.RuleID, EventType: EventViolation, At: t0}, 0, 0, true, false},
		{"another rule's event", r, Event{EventID: 11, RuleID: "x.y", Polarity: Reinforce, At: t0}, 0, 0, true, false},
		{"evidence no longer held", ruleWith(CategoryToolPreference, SeverityShould, 0, 0, t0), reinf, 0, 0, true, false},
		{"the act that stated it", func() Rule { x := r; x.State(StatedExplicit, "CORRECT[...]", t0); return x }(), reinf, r.Alpha - 1, r.Beta, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Retract(tt.rule, tt.ev, earlier, t0.Add(time.Hour))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if got.Rule.Alpha != tt.wantAlpha || got.Rule.Beta != tt.wantBeta || !got.Rule.LastCorrection.Equal(earlier) {
				t.Errorf("α %v β %v last %v, want %v %v %v", got.Rule.Alpha, got.Rule.Beta, got.Rule.LastCorrection, tt.wantAlpha, tt.wantBeta, earlier)
			}
			if (got.Rule.Stated == nil) != (tt.wantUnstate || tt.rule.Stated == nil) {
				t.Errorf("stated %+v", got.Rule.Stated)
			}
			if got.Event.EventType != EventManualOverride || got.Event.Alpha != got.Rule.Alpha || got.Event.Polarity != 0 {
				t.Errorf("retraction event %+v", got.Event)
			}
		})
	}
}
