package engine

import (
	"testing"
	"time"
)

// reinforcementsTo counts the reinforcements from the prior a rule of cat and
// sev needs before pass holds, assessed one second after the last one.
func reinforcementsTo(t *testing.T, cfg Config, cat string, sev Severity, pass func(Assessment) bool) int {
	t.Helper()
	r := NewRule("test.rule", cat, sev, "text", Scope{}, cfg, t0)
	for k := 0; k <= 1000; k++ {
		if pass(Assess(&r, cfg, t0.Add(time.Second))) {
			return k
		}
		r.ApplyEvidence(Reinforce, t0)
	}
	t.Fatalf("%s %s: not reached after 1000 reinforcements", cat, sev)
	return 0
}

// TestReinforcementsToActivate computes, from DefaultConfig, the counts the
// README and Assess's doc comment state: a threshold a rule reaches exactly
// (security_policy's 20/25 = 0.8, the provisional 5/10 = 0.5) is met even
// though a second of decay has passed.
func TestReinforcementsToActivate(t *testing.T) {
	cfg := DefaultConfig()
	active := func(a Assessment) bool { return a.Active }
	provisional := func(a Assessment) bool { return a.Provisional }
	tests := []struct {
		name string
		cat  string
		sev  Severity
		pass func(Assessment) bool
		want int
	}{
		{"default categories (5 / 0.7)", "general", SeverityShould, active, 10},
		{"tool_preference (3 / 0.6)", CategoryToolPreference, SeverityShould, active, 6},
		{"code_style", CategoryCodeStyle, SeverityShould, active, 6},
		{"communication_style", CategoryCommunicationStyle, SeverityShould, active, 6},
		{"security_policy (10 / 0.8): 20/25 is exactly 0.8", CategorySecurityPolicy, SeverityShould, active, 18},
		{"provisional must (3 / 0.5): 5/10 is exactly 0.5", "general", SeverityMust, provisional, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := reinforcementsTo(t, cfg, tt.cat, tt.sev, tt.pass); got != tt.want {
				t.Errorf("%d reinforcements, want %d", got, tt.want)
			}
		})
	}
}

func TestMeetsConfidence(t *testing.T) {
	tests := []struct {
		conf, threshold float64
		want            bool
	}{
		{0.8, 0.8, true},
		{0.8 * DecayFactor(1.0/86400, 180), 0.8, true}, // one second of decay
		{0.79995, 0.8, true},                           // rounds to 0.8000
		{0.79994, 0.8, false},                          // rounds to 0.7999
		{0.7999, 0.8, false},
		{0.5 * DecayFactor(1.0/86400, 180), 0.5, true},
		{0.4999, 0.5, false},
		{0.7059, 0.7, true},
		{0.6875, 0.7, false},
		{0, 0, true},
		{1, 1, true},
	}
	for _, tt := range tests {
		if got := MeetsConfidence(tt.conf, tt.threshold); got != tt.want {
			t.Errorf("MeetsConfidence(%.7f, %g) = %v, want %v", tt.conf, tt.threshold, got, tt.want)
		}
	}
}

// TestExactThresholdDecaysAfterGrace checks that the rounding is a bound,
// not a free pass: a day after its 18th reinforcement a security rule at
// 20/25 is below 0.8 again.
func TestExactThresholdDecaysAfterGrace(t *testing.T) {
	cfg := DefaultConfig()
	r := ruleWith(CategorySecurityPolicy, SeverityShould, 18, 0, t0)
	if a := Assess(&r, cfg, t0.Add(time.Minute)); !a.Active {
		t.Errorf("a minute later: not active (conf %.7f)", a.ConfidenceFinal)
	}
	if a := Assess(&r, cfg, t0.Add(24*time.Hour)); a.Active {
		t.Errorf("a day later: still active (conf %.7f)", a.ConfidenceFinal)
	}
}
