package eval

import (
	"strings"

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
// classifier.ContentWords of each, reduced by stem, as a set.
func SharedContentWords(text, template string) []string {
	tw := map[string]bool{}
	for _, w := range classifier.ContentWords(template) {
		tw[stem(w)] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, w := range classifier.ContentWords(text) {
		s := stem(w)
		if tw[s] && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// stem is a crude English suffix stripper, deliberately generous ("edits",
// "editing", "edited" → "edit"; "committed" → "commit"; "files", "file" →
// "fil") so that the low-overlap count errs on the side of finding overlap.
func stem(w string) string {
	switch {
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		w = w[:len(w)-3]
	case strings.HasSuffix(w, "ed") && len(w) >= 5:
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "es") && len(w) >= 5 && strings.ContainsRune("sxz", rune(w[len(w)-3])),
		strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) >= 4:
		w = w[:len(w)-1]
	}
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	if n := len(w); n >= 4 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	return w
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
