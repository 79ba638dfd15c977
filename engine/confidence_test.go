package engine

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2025, 11, 22, 12, 0, 0, 0, time.UTC)

func near(a, b float64) bool { return math.Abs(a-b) < 5e-5 }

// ruleWith returns a rule of category cat at the prior with k reinforcements
// and c counterexamples, the last at last.
func ruleWith(cat string, sev Severity, k, c int, last time.Time) Rule {
	r := NewRule("test.rule", cat, sev, "text", Scope{}, DefaultConfig(), last)
	for i := 0; i < k; i++ {
		r.ApplyEvidence(Reinforce, last)
	}
	for i := 0; i < c; i++ {
		r.ApplyEvidence(Counter, last)
	}
	return r
}

func TestConfidenceWorkedValues(t *testing.T) {
	cfg := DefaultConfig()
	tests := []struct {
		name      string
		k, c      int
		days      float64
		wantBase  float64
		wantFinal float64
	}{
		{"prior", 0, 0, 0, 2.0 / 7, 0.2857},
		{"k=9 just below 0.70", 9, 0, 0, 11.0 / 16, 0.6875},
		{"k=10 first at or above 0.70", 10, 0, 0, 12.0 / 17, 0.7059},
		{"k=10 after 90 days", 10, 0, 90, 12.0 / 17, 0.4281},
		{"k=10 after 180 days is ×1/e", 10, 0, 180, 12.0 / 17, 12.0 / 17 / math.E},
		{"counterexamples lower it", 10, 3, 0, 12.0 / 20, 0.6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ruleWith("general", SeverityShould, tt.k, tt.c, t0)
			a := Assess(&r, cfg, t0.Add(time.Duration(tt.days*24)*time.Hour))
			if !near(a.ConfidenceBase, tt.wantBase) || !near(a.ConfidenceFinal, tt.wantFinal) {
				t.Errorf("base %.6f final %.6f, want %.6f %.6f", a.ConfidenceBase, a.ConfidenceFinal, tt.wantBase, tt.wantFinal)
			}
			if a.Evidence != tt.k+tt.c {
				t.Errorf("evidence %d, want %d", a.Evidence, tt.k+tt.c)
			}
		})
	}
}

func TestCandidateRuleFromCorrection(t *testing.T) {
	r := NewCandidateRule("pnpm, not npm", "", Scope{}, DefaultConfig(), t0)
	if r.Alpha != 3 || r.Beta != 5 || r.Evidence() != 1 || r.Reinforcements != 1 {
		t.Fatalf("alpha %g beta %g n %d, want 3 5 1", r.Alpha, r.Beta, r.Evidence())
	}
	if c := ConfidenceBase(r.Alpha, r.Beta); c != 0.375 {
		t.Errorf("confidence %g, want 0.375", c)
	}
	if r.Status != StatusCandidate || r.Source != SourceCorrection {
		t.Errorf("status %s source %s", r.Status, r.Source)
	}
	if err := ValidateRuleID(r.RuleID); err != nil {
		t.Errorf("proposed id %q: %v", r.RuleID, err)
	}
}

func TestActivationPerCategory(t *testing.T) {
	cfg := DefaultConfig()
	tests := []struct {
		cat        string
		k, c       int
		wantActive bool
	}{
		// default 5 / 0.7: k=10 reaches 0.7059.
		{"general", 9, 0, false},
		{"general", 10, 0, true},
		// tool_preference, code_style, communication_style 3 / 0.6: (2+k)/(7+k) ≥ 0.6 from k=6.
		{CategoryToolPreference, 5, 0, false},
		{CategoryToolPreference, 6, 0, true},
		{CategoryCodeStyle, 6, 0, true},
		{CategoryCommunicationStyle, 6, 0, true},
		// security_policy 10 / 0.8: (2+k)/(7+k) ≥ 0.8 from k=18.
		{CategorySecurityPolicy, 17, 0, false},
		{CategorySecurityPolicy, 18, 0, true},
	}
	for _, tt := range tests {
		r := ruleWith(tt.cat, SeverityShould, tt.k, tt.c, t0)
		if a := Assess(&r, cfg, t0); a.Active != tt.wantActive {
			t.Errorf("%s k=%d: active %v (conf %.4f n %d), want %v", tt.cat, tt.k, a.Active, a.ConfidenceFinal, a.Evidence, tt.wantActive)
		}
	}
}

func TestEvidenceFloorCountsEvidenceNotPrior(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Categories = nil
	cfg.Default = Thresholds{NMin: 5, CMin: 0.1, TauDays: 180}
	// The prior alone is alpha+beta = 7 ≥ 5, but n = 0: not active.
	r := ruleWith("general", SeverityShould, 0, 0, t0)
	if Assess(&r, cfg, t0).Active {
		t.Fatal("a rule with no evidence is active")
	}
	r = ruleWith("general", SeverityShould, 4, 0, t0)
	if Assess(&r, cfg, t0).Active {
		t.Fatal("n=4 < N_min=5 is active")
	}
	r = ruleWith("general", SeverityShould, 5, 0, t0)
	if !Assess(&r, cfg, t0).Active {
		t.Fatal("n=5 is not active")
	}
}

func TestProvisional(t *testing.T) {
	cfg := DefaultConfig()
	tests := []struct {
		name string
		sev  Severity
		k, c int
		days float64
		want bool
	}{
		{"must, n=3, conf 5/10=0.5", SeverityMust, 3, 0, 0, true},
		{"must, n=2 below floor", SeverityMust, 2, 0, 0, false},
		{"should is never provisional", SeverityShould, 3, 0, 0, false},
		{"must, decayed below 0.5", SeverityMust, 3, 0, 30, false},
		{"must but active is not provisional", SeverityMust, 10, 0, 0, false},
	}
	for _, tt := range tests {
		r := ruleWith("general", tt.sev, tt.k, tt.c, t0)
		a := Assess(&r, cfg, t0.Add(time.Duration(tt.days*24)*time.Hour))
		if a.Provisional != tt.want {
			t.Errorf("%s: provisional %v (conf %.4f)", tt.name, a.Provisional, a.ConfidenceFinal)
		}
	}
}

func TestDormancy(t *testing.T) {
	cfg := DefaultConfig()
	tests := []struct {
		name string
		k    int
		days float64
		want Dormancy
	}{
		{"fresh", 2, 10, DormancyNone},
		{"365 days is not over 365", 2, 365, DormancyNone},
		{"366 days, n=2 < 5", 2, 366, DormancyStaleWeak},
		{"366 days, n=5 is not weak", 5, 366, DormancyNone},
		{"731 days", 20, 731, DormancyDormant},
	}
	for _, tt := range tests {
		r := ruleWith("general", SeverityShould, tt.k, 0, t0)
		if a := Assess(&r, cfg, t0.Add(time.Duration(tt.days*24)*time.Hour)); a.Dormancy != tt.want {
			t.Errorf("%s: dormancy %q, want %q", tt.name, a.Dormancy, tt.want)
		}
	}
}

func TestBackfillNeverMovesLastCorrectionBack(t *testing.T) {
	r := ruleWith("general", SeverityShould, 1, 0, t0)
	r.ApplyEvidence(Reinforce, t0.Add(-48*time.Hour))
	if !r.LastCorrection.Equal(t0) || !r.FirstSeen.Equal(t0.Add(-48*time.Hour)) {
		t.Errorf("last %s first %s", r.LastCorrection, r.FirstSeen)
	}
}
