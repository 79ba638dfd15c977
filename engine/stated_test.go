package engine

import (
	"strings"
	"testing"
	"time"
)

// TestStatedInForce: an explicit statement puts a rule in force at once,
// whatever its evidence and decay, until cfg.ExplicitWeight counterexamples
// recorded after it outweigh it.
func TestStatedInForce(t *testing.T) {
	cfg := DefaultConfig() // ExplicitWeight 3
	off := DefaultConfig()
	off.ExplicitWeight = 0
	stated := func(k, c, counterAfter int) Rule {
		r := ruleWith(CategorySecurityPolicy, SeverityMust, k, c, t0)
		r.State(StatedRuleAdded, "never hard-code secrets", t0)
		for i := 0; i < counterAfter; i++ {
			r.ApplyEvidence(Counter, t0)
		}
		return r
	}
	tests := []struct {
		name       string
		rule       Rule
		cfg        Config
		now        time.Time
		wantActive bool
		wantStated bool
	}{
		{"no evidence, stated", stated(0, 0, 0), cfg, t0, true, true},
		{"stated two years ago: no decay out", stated(0, 0, 0), cfg, t0.Add(800 * 24 * time.Hour), true, true},
		{"counterexamples before the statement do not count", stated(0, 5, 0), cfg, t0, true, true},
		{"two counterexamples since", stated(0, 0, 2), cfg, t0, true, true},
		{"three counterexamples since outweigh it", stated(0, 0, 3), cfg, t0, false, false},
		{"explicit weight 0: evidence alone", stated(0, 0, 0), off, t0, false, false},
		{"not stated", ruleWith(CategorySecurityPolicy, SeverityMust, 0, 0, t0), cfg, t0, false, false},
		{"archived, stated", func() Rule { r := stated(0, 0, 0); r.Status = StatusArchived; return r }(), cfg, t0, false, false},
		{"candidate, stated", func() Rule { r := stated(0, 0, 0); r.Status = StatusCandidate; return r }(), cfg, t0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Assess(&tt.rule, tt.cfg, tt.now)
			if a.Active != tt.wantActive || a.Stated != tt.wantStated {
				t.Errorf("active %v stated %v, want %v %v", a.Active, a.Stated, tt.wantActive, tt.wantStated)
			}
			if a.Stated && (a.Dormancy != DormancyNone || a.Provisional) {
				t.Errorf("a stated rule is %q, provisional %v", a.Dormancy, a.Provisional)
			}
		})
	}
}

// TestCorrectStates: an explicit correction states its rule (and accepts a
// candidate it names); an explicit counterexample withdraws the statement;
// implicit evidence leaves it as it is.
func TestCorrectStates(t *testing.T) {
	cfg := DefaultConfig()
	noState := func(string) (map[string]int, []string, error) { return nil, nil, nil }
	base := Correction{UserText: "CORRECT[tool.x]: " + strings.Repeat("y", 600), At: t0, Polarity: Reinforce, Stated: StatedExplicit}
	r := ruleWith(CategoryToolPreference, SeverityShould, 0, 0, t0)
	r.Status = StatusCandidate
	out, err := Correct(r, base, cfg, noState)
	if err != nil {
		t.Fatal(err)
	}
	if out.Rule.Stated == nil || out.Rule.Stated.By != StatedExplicit || out.Rule.Status != StatusActiveEligible || !out.Assessment.Active {
		t.Fatalf("after an explicit correction: stated %+v status %s active %v", out.Rule.Stated, out.Rule.Status, out.Assessment.Active)
	}
	if n := len(out.Rule.Stated.Text); n > MaxStatedTextLength+len("…") {
		t.Errorf("statement keeps %d bytes of text", n)
	}
	implicit := base
	implicit.Stated, implicit.Polarity = "", Counter
	out2, err := Correct(out.Rule, implicit, cfg, noState)
	if err != nil {
		t.Fatal(err)
	}
	if out2.Rule.Stated == nil || !out2.Assessment.Active {
		t.Errorf("one implicit counterexample withdrew the statement")
	}
	counter := base
	counter.Polarity = Counter
	out3, err := Correct(out2.Rule, counter, cfg, noState)
	if err != nil {
		t.Fatal(err)
	}
	if out3.Rule.Stated != nil || out3.Assessment.Active {
		t.Errorf("an explicit counterexample left the rule stated (%+v) or active", out3.Rule.Stated)
	}
}
