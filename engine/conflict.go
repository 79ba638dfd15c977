package engine

import (
	"sort"
	"strconv"
	"time"
)

// Assessed is a rule together with its assessment at one moment, as conflict
// resolution and snapshots see it.
type Assessed struct {
	Rule        *Rule
	Assessment  Assessment
	Specificity float64
}

// Tie-break criteria, in the order they are tried.
const (
	CriterionSpecificity = "specificity"
	CriterionSeverity    = "severity"
	CriterionRecency     = "recency"
	CriterionConfidence  = "confidence"
	CriterionRuleID      = "rule_id" // last resort, so the outcome is deterministic
)

// Loss records that a rule was overridden by another of the same topic: the
// deciding criterion and both rules' values for it.
type Loss struct {
	RuleID      string `json:"rule_id"`
	LostTo      string `json:"lost_to"`
	Topic       string `json:"topic"`
	Criterion   string `json:"criterion"`
	LoserValue  string `json:"loser_value"`
	WinnerValue string `json:"winner_value"`
}

// compare returns the first criterion on which a and b differ and whether a
// wins on it. Higher specificity, stronger severity, newer last_correction and
// higher confidence_final win, in that order; equal on all, the smaller rule
// id wins.
func compare(a, b *Assessed) (criterion string, aWins bool) {
	if a.Specificity != b.Specificity {
		return CriterionSpecificity, a.Specificity > b.Specificity
	}
	if ra, rb := a.Rule.Severity.Rank(), b.Rule.Severity.Rank(); ra != rb {
		return CriterionSeverity, ra > rb
	}
	if !a.Rule.LastCorrection.Equal(b.Rule.LastCorrection) {
		return CriterionRecency, a.Rule.LastCorrection.After(b.Rule.LastCorrection)
	}
	if a.Assessment.ConfidenceFinal != b.Assessment.ConfidenceFinal {
		return CriterionConfidence, a.Assessment.ConfidenceFinal > b.Assessment.ConfidenceFinal
	}
	return CriterionRuleID, a.Rule.RuleID < b.Rule.RuleID
}

func criterionValue(c string, x *Assessed) string {
	switch c {
	case CriterionSpecificity:
		return strconv.FormatFloat(x.Specificity, 'g', -1, 64)
	case CriterionSeverity:
		return string(x.Rule.Severity)
	case CriterionRecency:
		return x.Rule.LastCorrection.UTC().Format(time.RFC3339)
	case CriterionConfidence:
		return strconv.FormatFloat(x.Assessment.ConfidenceFinal, 'f', 4, 64)
	}
	return x.Rule.RuleID
}

// ResolveConflicts groups rules by topic; within each topic the rules compete
// and only the winner survives. Rules without a topic never compete. It
// returns pointers to the survivors, in input order, and one Loss for every loser.
func ResolveConflicts(rules []Assessed) (winners []*Assessed, losses []Loss) {
	best := map[string]int{} // topic → index of current winner
	winners = make([]*Assessed, 0, len(rules))
	for i := range rules {
		t := rules[i].Rule.Topic
		if t == "" {
			continue
		}
		j, ok := best[t]
		if !ok {
			best[t] = i
			continue
		}
		if _, iWins := compare(&rules[i], &rules[j]); iWins {
			best[t] = i
		}
	}
	for i := range rules {
		t := rules[i].Rule.Topic
		if t == "" || best[t] == i {
			winners = append(winners, &rules[i])
			continue
		}
		w := &rules[best[t]]
		c, _ := compare(w, &rules[i])
		losses = append(losses, Loss{
			RuleID: rules[i].Rule.RuleID, LostTo: w.Rule.RuleID, Topic: t, Criterion: c,
			LoserValue: criterionValue(c, &rules[i]), WinnerValue: criterionValue(c, w),
		})
	}
	sort.SliceStable(losses, func(a, b int) bool {
		if losses[a].Topic != losses[b].Topic {
			return losses[a].Topic < losses[b].Topic
		}
		return losses[a].RuleID < losses[b].RuleID
	})
	return winners, losses
}
