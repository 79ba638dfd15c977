package eval

import (
	"github.com/lexsona/lexsona/classifier"
)

// LowOverlapMax is the most content words a correction may share with its
// rule's template to count as "phrased differently" (the paper's main source
// of false negatives: "stop doing X" against a template saying "avoid X").
const LowOverlapMax = 1

// OverlapStats describe how the match items are phrased against their rule's
// template, and how the classifier does on each group at the auto threshold
// (guard on).
type OverlapStats struct {
	MatchItems int     `json:"match_items"`
	LowOverlap int     `json:"low_overlap"` // sharing at most LowOverlapMax content words
	Fraction   float64 `json:"fraction"`
	LowRecall  float64 `json:"low_recall"`  // recall on the low-overlap items
	HighRecall float64 `json:"high_recall"` // recall on the others
}

// SharedContentWords returns the content words text shares with template:
// classifier.ContentWords of each, reduced by classifier.Stem, as a set.
func SharedContentWords(text, template string) []string {
	tw := map[string]bool{}
	for _, w := range classifier.ContentWords(template) {
		tw[classifier.Stem(w)] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, w := range classifier.ContentWords(text) {
		s := classifier.Stem(w)
		if tw[s] && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Overlap computes OverlapStats for the match items of scored; templates maps
// a rule id to its template. Recalls are at threshold t with the guard on.
func Overlap(scored []Scored, templates map[string]string, t float64) OverlapStats {
	var st OverlapStats
	var low, high []Scored
	for _, s := range scored {
		if s.Kind != KindMatch {
			continue
		}
		st.MatchItems++
		if len(SharedContentWords(s.Text, templates[s.Expected])) <= LowOverlapMax {
			low = append(low, s)
		} else {
			high = append(high, s)
		}
	}
	st.LowOverlap = len(low)
	st.Fraction = ratio(st.LowOverlap, st.MatchItems)
	ml, _ := Score(low, nil, t, true)
	mh, _ := Score(high, nil, t, true)
	st.LowRecall, st.HighRecall = ml.Recall, mh.Recall
	return st
}
