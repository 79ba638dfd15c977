package eval

import (
	"github.com/lexsona/lexsona/classifier"
)

// PaperPoint is the Appendix B table at one of the paper's own thresholds,
// whatever the thresholds the report evaluates: overall and per category,
// guard on and off.
type PaperPoint struct {
	Threshold          float64            `json:"threshold"`
	Overall            Metrics            `json:"overall"`
	ByCategory         map[string]Metrics `json:"by_category"`
	GuardOffOverall    Metrics            `json:"guard_off_overall"`
	GuardOffByCategory map[string]Metrics `json:"guard_off_by_category"`
}

// PaperComparison puts the embedder at the paper's threshold (0.85) and at
// its ablation threshold (0.75) next to what the paper claims (Report.Paper).
type PaperComparison struct {
	Scoring     string     `json:"scoring"` // always ScoringDense: the paper's method
	AtThreshold PaperPoint `json:"at_threshold"`
	AtAblation  PaperPoint `json:"at_ablation"`
}

// paperPoint scores items at t, guard on and off.
func paperPoint(items []Scored, cats map[string]string, t float64) PaperPoint {
	p := PaperPoint{Threshold: t}
	p.Overall, p.ByCategory = Score(items, cats, t, true)
	p.GuardOffOverall, p.GuardOffByCategory = Score(items, cats, t, false)
	return p
}

// SplitView is the headline numbers on one split of the dataset (guard on):
// rule identification at the report's auto threshold (the product's scoring)
// and at the paper's two thresholds (the paper's method, dense cosine), the
// ranking and the polarity at the report's thresholds (the product's).
type SplitView struct {
	Split      string          `json:"split"`
	Items      int             `json:"items"`
	Counts     map[string]int  `json:"counts"`
	AtAuto     Metrics         `json:"at_auto"`
	AtPaper    Metrics         `json:"at_paper_threshold"`
	AtAblation Metrics         `json:"at_paper_ablation"`
	Ranking    Ranking         `json:"ranking"`
	Polarity   PolarityMetrics `json:"polarity"`
}

// splitViews returns a SplitView for the dev and the test split, or none
// when the items have no split; items are scored by the product, dense by
// the paper's method.
func splitViews(items, dense []Scored, t classifier.Thresholds) []SplitView {
	var out []SplitView
	for _, split := range []string{SplitDev, SplitTest} {
		sub, denseSub := ofSplit(items, split), ofSplit(dense, split)
		if len(sub) == 0 {
			continue
		}
		v := SplitView{Split: split, Items: len(sub), Counts: map[string]int{}, Ranking: Rank(sub),
			Polarity: ScorePolarity(sub, t, true)}
		for _, k := range Kinds {
			v.Counts[k] = 0
		}
		for _, s := range sub {
			v.Counts[s.Kind]++
		}
		v.AtAuto, _ = Score(sub, nil, t.Auto, true)
		v.AtPaper, _ = Score(denseSub, nil, Paper.Threshold, true)
		v.AtAblation, _ = Score(denseSub, nil, Paper.AblationThreshold, true)
		out = append(out, v)
	}
	return out
}

// ofSplit returns the items of one split.
func ofSplit(items []Scored, split string) []Scored {
	var sub []Scored
	for _, s := range items {
		if s.Split == split {
			sub = append(sub, s)
		}
	}
	return sub
}

// PolarityReport is what the classifier does with contradictions and
// affirmations at the report's thresholds (guard on), on all items and per
// split, with the errors behind the numbers.
type PolarityReport struct {
	All     PolarityMetrics            `json:"all"`
	BySplit map[string]PolarityMetrics `json:"by_split,omitempty"`
	// Ranking is how often the rule a contradiction item contradicts scores
	// first / in the top 3 (the rule a counterexample should go to).
	Ranking Ranking     `json:"ranking"`
	Errors  []ErrorCase `json:"errors"` // polarity errors and false alarms, most confident first
}

// polarityReport builds the PolarityReport of items at t; splits are their
// SplitViews at t.
func polarityReport(items []Scored, t classifier.Thresholds, splits []SplitView) PolarityReport {
	r := PolarityReport{All: ScorePolarity(items, t, true), Ranking: RankKinds(items, KindContradiction),
		Errors: PolarityErrors(items, t, true, 2*worstN)}
	for _, v := range splits {
		if r.BySplit == nil {
			r.BySplit = map[string]PolarityMetrics{}
		}
		r.BySplit[v.Split] = v.Polarity
	}
	return r
}
