package engine

import (
	"testing"
	"time"
)

// TestPromoteCandidate: a candidate proposed from a correction becomes
// active-eligible at the correction that takes it over its category's
// thresholds, and not one earlier.
func TestPromoteCandidate(t *testing.T) {
	tests := []struct {
		name     string
		category string
		want     int // reinforcements in all (the proposing correction included) at promotion
	}{
		// (2+10)/(7+10) = 0.7059 ≥ 0.7, n 10 ≥ 5; at 9, 11/16 = 0.6875.
		{"default thresholds (5 / 0.7)", "", 10},
		// (2+6)/(7+6) = 0.6154 ≥ 0.6; at 5, 7/12 = 0.5833.
		{"tool_preference (3 / 0.6)", CategoryToolPreference, 6},
		// 20/25 = 0.8 exactly, n 18 ≥ 10.
		{"security_policy (10 / 0.8)", CategorySecurityPolicy, 18},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := autoPromoting(t)
			r := NewCandidateRule("use pnpm, never npm", tt.category, Scope{}, cfg, t0)
			at := t0
			for r.Reinforcements < 100 {
				if PromoteCandidate(&r, cfg, at) {
					break
				}
				if r.Status != StatusCandidate {
					t.Fatalf("status %s without promotion", r.Status)
				}
				at = at.Add(time.Hour)
				r.ApplyEvidence(Reinforce, at)
			}
			if r.Reinforcements != tt.want || r.Status != StatusActiveEligible {
				t.Errorf("promoted at %d reinforcements (status %s), want %d", r.Reinforcements, r.Status, tt.want)
			}
			if !Assess(&r, cfg, at).Active {
				t.Errorf("promoted but not active")
			}
		})
	}
}

func TestPromoteCandidateRefuses(t *testing.T) {
	cfg := autoPromoting(t)
	passing := func() Rule { // 12/17: passes the default thresholds
		r := ruleWith("general", SeverityShould, 10, 0, t0)
		r.Status = StatusCandidate
		return r
	}
	off := DefaultConfig()
	off.AutoPromote = false
	tests := []struct {
		name   string
		rule   func() Rule
		cfg    Config
		at     time.Time
		want   bool
		status Status
	}{
		{"passing candidate", passing, cfg, t0, true, StatusActiveEligible},
		{"auto-promote off", passing, off, t0, false, StatusCandidate},
		{"an exception proposal waits for the user", func() Rule {
			r := passing()
			r.ExceptionOf, r.ExceptionTag = "tool.no-sed", "migration"
			return r
		}, cfg, t0, false, StatusCandidate},
		{"archived (a rejected candidate)", func() Rule {
			r := passing()
			r.Status = StatusArchived
			return r
		}, cfg, t0, false, StatusArchived},
		{"already active-eligible", func() Rule { return ruleWith("general", SeverityShould, 10, 0, t0) }, cfg, t0, false, StatusActiveEligible},
		{"one reinforcement short", func() Rule {
			r := ruleWith("general", SeverityShould, 9, 0, t0)
			r.Status = StatusCandidate
			return r
		}, cfg, t0, false, StatusCandidate},
		{"counterexamples hold it back: 12/18", func() Rule {
			r := ruleWith("general", SeverityShould, 10, 1, t0)
			r.Status = StatusCandidate
			return r
		}, cfg, t0, false, StatusCandidate},
		{"decayed below c_min: 90 days later", passing, cfg, t0.Add(90 * 24 * time.Hour), false, StatusCandidate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.rule()
			if got := PromoteCandidate(&r, tt.cfg, tt.at); got != tt.want || r.Status != tt.status {
				t.Errorf("PromoteCandidate = %v, status %s; want %v, %s", got, r.Status, tt.want, tt.status)
			}
		})
	}
}

// TestCorrectionsNeeded checks counts worked out by hand from the prior
// Beta(2, 5): k more reinforcements give confidence (2+r+k)/(7+r+c+k).
func TestCorrectionsNeeded(t *testing.T) {
	cfg := autoPromoting(t)
	cfg.Categories["half"] = Thresholds{NMin: 3, CMin: 0.5, TauDays: 180}   // 5/10 is exactly 0.5
	cfg.Categories["floor"] = Thresholds{NMin: 20, CMin: 0.1, TauDays: 180} // the evidence floor decides
	cfg.Categories["forever"] = Thresholds{NMin: 0, CMin: 1, TauDays: 180}  // see below
	cfg.Categories["slow"] = Thresholds{NMin: 3, CMin: 0.6, TauDays: 1e6}   // no decay to speak of
	later := func(days int) time.Time { return t0.Add(time.Duration(days) * 24 * time.Hour) }
	candidate := func(r Rule) Rule { r.Status = StatusCandidate; return r }
	tests := []struct {
		name string
		rule Rule
		cfg  Config
		now  time.Time
		want int
	}{
		{"default, from the prior: 12/17 = 0.7059, 11/16 = 0.6875", ruleWith("general", SeverityShould, 0, 0, t0), cfg, t0, 10},
		{"default, 4 already", ruleWith("general", SeverityShould, 4, 0, t0), cfg, t0, 6},
		{"default, active", ruleWith("general", SeverityShould, 10, 0, t0), cfg, t0, 0},
		{"must, default category: active at 10 (provisional from 3)", ruleWith("general", SeverityMust, 3, 0, t0), cfg, t0, 7},
		{"must at c_min 0.5: 5/10 exactly", ruleWith("half", SeverityMust, 0, 0, t0), cfg, t0, 3},
		{"must at c_min 0.5, one short: 4/9 = 0.4444", ruleWith("half", SeverityMust, 2, 0, t0), cfg, t0, 1},
		{"security from the prior: 20/25 exactly 0.8", ruleWith(CategorySecurityPolicy, SeverityMust, 0, 0, t0), cfg, t0, 18},
		{"security at 17: 19/24 = 0.7917", ruleWith(CategorySecurityPolicy, SeverityShould, 17, 0, t0), cfg, t0, 1},
		{"security at 18, a second later", ruleWith(CategorySecurityPolicy, SeverityShould, 18, 0, t0), cfg, t0.Add(time.Second), 0},
		{"tool_preference: 8/13 = 0.6154", ruleWith(CategoryToolPreference, SeverityShould, 0, 0, t0), cfg, t0, 6},
		{"counterexamples: 12/20 needs 7 (19/27 = 0.7037; 18/26 = 0.6923)", ruleWith("general", SeverityShould, 10, 3, t0), cfg, t0, 7},
		{"evidence floor 20 decides", ruleWith("floor", SeverityShould, 0, 0, t0), cfg, t0, 20},
		{"decayed: 12/17 after 180 days is 0.26; one correction now gives 13/18", ruleWith("general", SeverityShould, 10, 0, t0), cfg, later(180), 1},
		{"dormant though its numbers pass", ruleWith("slow", SeverityShould, 9, 0, t0), cfg, later(800), 1},
		{"candidate still short: as a rule of its category", candidate(ruleWith("general", SeverityShould, 4, 0, t0)), cfg, t0, 6},
		{"candidate passing: its next correction promotes it", candidate(ruleWith("general", SeverityShould, 10, 0, t0)), cfg, t0, 1},
		{"candidate, auto-promote off", candidate(ruleWith("general", SeverityShould, 10, 0, t0)), func() Config { c := DefaultConfig(); c.AutoPromote = false; return c }(), t0, NeededNever},
		{"archived", func() Rule { r := ruleWith("general", SeverityShould, 10, 0, t0); r.Status = StatusArchived; return r }(), cfg, t0, NeededNever},
		{"exception proposal", func() Rule {
			r := candidate(ruleWith("general", SeverityShould, 3, 0, t0))
			r.ExceptionOf = "a.b"
			return r
		}(), cfg, t0, NeededNever},
		// c_min 1 rounds to 1.0000: confidence 0.99995 needs beta/(alpha+beta+k) ≤ 0.00005,
		// beyond MaxCorrectionsNeeded once beta is 1,000.
		{"out of reach", func() Rule { r := ruleWith("forever", SeverityShould, 0, 995, t0); return r }(), cfg, t0, NeededNever},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.rule
			if got := CorrectionsNeeded(&r, tt.cfg, tt.now); got != tt.want {
				t.Errorf("CorrectionsNeeded = %d, want %d", got, tt.want)
			}
			if r.Alpha != tt.rule.Alpha || r.Status != tt.rule.Status || !r.LastCorrection.Equal(tt.rule.LastCorrection) {
				t.Errorf("CorrectionsNeeded changed the rule")
			}
		})
	}
}

// TestCorrectionsNeededMatchesOneByOne compares the search with adding
// reinforcements one at a time, over categories, evidence and ages.
func TestCorrectionsNeededMatchesOneByOne(t *testing.T) {
	cfg := DefaultConfig()
	for _, cat := range []string{"general", CategoryToolPreference, CategorySecurityPolicy} {
		for _, k := range []int{0, 1, 5, 9, 17, 30} {
			for _, c := range []int{0, 1, 4, 12} {
				for _, days := range []int{0, 30, 200, 400, 800} {
					r := ruleWith(cat, SeverityShould, k, c, t0)
					now := t0.Add(time.Duration(days) * 24 * time.Hour)
					want := 0
					for x := r; ; want++ {
						if a := Assess(&x, cfg, now); a.Active && a.Dormancy == DormancyNone {
							break
						}
						x.ApplyEvidence(Reinforce, now)
						if want > 10000 {
							t.Fatalf("%s k=%d c=%d: no activation", cat, k, c)
						}
					}
					if got := CorrectionsNeeded(&r, cfg, now); got != want {
						t.Errorf("%s k=%d c=%d after %d days: %d, one by one %d", cat, k, c, days, got, want)
					}
				}
			}
		}
	}
}
