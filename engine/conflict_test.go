package engine

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func assessed(id string, scope Scope, sev Severity, last time.Time, conf float64) Assessed {
	r := &Rule{RuleID: id, Topic: "t", Severity: sev, Scope: scope, LastCorrection: last, Status: StatusActiveEligible}
	return Assessed{Rule: r, Assessment: Assessment{ConfidenceFinal: conf, Active: true}, Specificity: scope.Specificity()}
}

func TestResolveConflictsTieBreaks(t *testing.T) {
	later := t0.Add(time.Hour)
	tests := []struct {
		name     string
		a, b     Assessed
		winner   string
		criteria string
		loserV   string
		winnerV  string
	}{
		{"specificity: project beats environment",
			assessed("a.env", Scope{Environment: "w"}, SeverityMust, later, 0.9),
			assessed("b.proj", Scope{Project: "p"}, SeverityStyle, t0, 0.6),
			"b.proj", CriterionSpecificity, "1", "2"},
		{"severity: must beats should at equal specificity",
			assessed("a.should", Scope{}, SeverityShould, later, 0.9),
			assessed("b.must", Scope{}, SeverityMust, t0, 0.6),
			"b.must", CriterionSeverity, "should", "must"},
		{"recency: newer last_correction wins",
			assessed("a.old", Scope{}, SeverityShould, t0, 0.9),
			assessed("b.new", Scope{}, SeverityShould, later, 0.6),
			"b.new", CriterionRecency, t0.Format(time.RFC3339), later.Format(time.RFC3339)},
		{"confidence: higher confidence_final wins",
			assessed("a.low", Scope{}, SeverityShould, t0, 0.7),
			assessed("b.high", Scope{}, SeverityShould, t0, 0.8),
			"b.high", CriterionConfidence, "0.7000", "0.8000"},
		{"rule id: deterministic last resort",
			assessed("b.same", Scope{}, SeverityShould, t0, 0.7),
			assessed("a.same", Scope{}, SeverityShould, t0, 0.7),
			"a.same", CriterionRuleID, "b.same", "a.same"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, order := range [][]Assessed{{tt.a, tt.b}, {tt.b, tt.a}} {
				winners, losses := ResolveConflicts(order)
				if len(winners) != 1 || winners[0].Rule.RuleID != tt.winner {
					t.Fatalf("winners %v, want %s", ids(winners), tt.winner)
				}
				loser := tt.a.Rule.RuleID
				if loser == tt.winner {
					loser = tt.b.Rule.RuleID
				}
				want := []Loss{{RuleID: loser, LostTo: tt.winner, Topic: "t", Criterion: tt.criteria, LoserValue: tt.loserV, WinnerValue: tt.winnerV}}
				if d := cmp.Diff(want, losses); d != "" {
					t.Errorf("losses (-want +got)\n%s", d)
				}
			}
		})
	}
}

func TestResolveConflictsOnlyWithinTopic(t *testing.T) {
	a := assessed("a", Scope{}, SeverityMust, t0, 0.9)
	b := assessed("b", Scope{}, SeverityMust, t0, 0.9)
	b.Rule.Topic = "other"
	c := assessed("c", Scope{}, SeverityMust, t0, 0.9)
	c.Rule.Topic = ""
	d := assessed("d", Scope{}, SeverityMust, t0, 0.9)
	d.Rule.Topic = ""
	winners, losses := ResolveConflicts([]Assessed{a, b, c, d})
	if len(winners) != 4 || len(losses) != 0 {
		t.Fatalf("winners %v losses %v", ids(winners), losses)
	}
}

func TestResolveConflictsManyLosers(t *testing.T) {
	rules := []Assessed{
		assessed("g.global", Scope{}, SeverityMust, t0, 0.9),
		assessed("p.project", Scope{Project: "p"}, SeverityStyle, t0, 0.7),
		assessed("e.env", Scope{Environment: "e"}, SeverityShould, t0, 0.9),
	}
	winners, losses := ResolveConflicts(rules)
	if len(winners) != 1 || winners[0].Rule.RuleID != "p.project" {
		t.Fatalf("winners %v", ids(winners))
	}
	if len(losses) != 2 || losses[0].LostTo != "p.project" || losses[1].LostTo != "p.project" {
		t.Fatalf("losses %+v", losses)
	}
}

func ids(as []*Assessed) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Rule.RuleID)
	}
	return out
}
