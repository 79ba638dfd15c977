package engine

import (
	"errors"
	"testing"
)

// TestCorrect: what one correction does to its rule — the evidence and its
// event, the promotion of a candidate, an exception proposal read only for
// a counterexample on an active-eligible rule — and the refusals.
func TestCorrect(t *testing.T) {
	cfg := autoPromoting(t) // ExceptionMinCount 3
	active := func() Rule { return ruleWith("general", SeverityShould, 4, 0, t0) }
	passing := func() Rule { // one more reinforcement passes the default thresholds
		r := ruleWith("general", SeverityShould, 9, 0, t0)
		r.Status = StatusCandidate
		return r
	}
	counter := Correction{RuleID: "test.rule", Polarity: Counter, UserText: "not here", Scope: Scope{ContextTags: []string{"migration"}}, At: t0}
	reinforce := Correction{RuleID: "test.rule", Polarity: Reinforce, UserText: "yes", At: t0}
	tests := []struct {
		name      string
		rule      func() Rule
		c         Correction
		counts    map[string]int // what the state reads
		proposed  []string
		wantRead  bool
		wantEvent EventType
		wantAlpha float64
		wantBeta  float64
		promoted  bool
		exception string // the exception's tag, "" for none
	}{
		{"reinforcement", active, reinforce, nil, nil, false, EventReinforcement, 7, 5, false, ""},
		{"counterexample, no pattern yet", active, counter, map[string]int{"migration": 1}, nil, true, EventCounterexample, 6, 6, false, ""},
		{"counterexample completing a pattern", active, counter, map[string]int{"migration": 2}, nil, true, EventCounterexample, 6, 6, false, "migration"},
		{"pattern proposed before", active, counter, map[string]int{"migration": 2}, []string{"migration"}, true, EventCounterexample, 6, 6, false, ""},
		{"counterexample on a candidate reads nothing", passing, counter, nil, nil, false, EventCounterexample, 11, 6, false, ""},
		{"candidate promoted", passing, reinforce, nil, nil, false, EventReinforcement, 12, 5, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := false
			state := func(id string) (map[string]int, []string, error) {
				read = true
				if id != "test.rule" {
					t.Errorf("state of %s", id)
				}
				return tt.counts, tt.proposed, nil
			}
			out, err := Correct(tt.rule(), tt.c, cfg, state)
			if err != nil {
				t.Fatal(err)
			}
			if read != tt.wantRead {
				t.Errorf("state read: %v, want %v", read, tt.wantRead)
			}
			if out.Event.EventType != tt.wantEvent || out.Event.Alpha != tt.wantAlpha || out.Event.Beta != tt.wantBeta {
				t.Errorf("event %s α %v β %v, want %s α %v β %v", out.Event.EventType, out.Event.Alpha, out.Event.Beta, tt.wantEvent, tt.wantAlpha, tt.wantBeta)
			}
			if out.Rule.Alpha != tt.wantAlpha || out.Rule.Beta != tt.wantBeta {
				t.Errorf("rule α %v β %v, want the event's", out.Rule.Alpha, out.Rule.Beta)
			}
			if promoted := out.Promotion != nil; promoted != tt.promoted || promoted != (out.Rule.Status == StatusActiveEligible && tt.rule().Status == StatusCandidate) {
				t.Errorf("promotion %v (status %s), want %v", promoted, out.Rule.Status, tt.promoted)
			}
			tag := ""
			if out.Exception != nil {
				tag = out.Exception.Tag
				if out.ExceptionEvent == nil || out.ExceptionEvent.RuleID != out.Exception.Rule.RuleID || out.Exception.Count != 3 {
					t.Errorf("exception %+v, creation event %+v", out.Exception, out.ExceptionEvent)
				}
			}
			if tag != tt.exception {
				t.Errorf("exception tag %q, want %q", tag, tt.exception)
			}
			if want := Assess(&out.Rule, cfg, t0); out.Assessment != want {
				t.Errorf("assessment %+v, want the rule's afterwards %+v", out.Assessment, want)
			}
		})
	}
}

// TestCorrectRefuses: an archived rule takes no correction, and the state's
// error is returned.
func TestCorrectRefuses(t *testing.T) {
	cfg := DefaultConfig()
	archived := ruleWith("general", SeverityShould, 4, 0, t0)
	archived.Status = StatusArchived
	if _, err := Correct(archived, Correction{Polarity: Reinforce, At: t0}, cfg, nil); ErrorCode(err) != ECONFLICT {
		t.Errorf("archived: %v, want ECONFLICT", err)
	}
	failed := errors.New("read failed")
	state := func(string) (map[string]int, []string, error) { return nil, nil, failed }
	if _, err := Correct(ruleWith("general", SeverityShould, 4, 0, t0), Correction{Polarity: Counter, At: t0}, cfg, state); !errors.Is(err, failed) {
		t.Errorf("state error: %v, want it returned", err)
	}
}
