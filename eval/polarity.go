package eval

import (
	"cmp"
	"slices"

	"github.com/lexsona/lexsona/classifier"
)

// Detection is the classifier's contradiction detector scored as a binary
// classifier, whatever the thresholds: the positive class is "the text
// contradicts its top rule" (Scored.Counters). Contradiction items are the
// positives, match and ambiguous items the negatives; new items have no rule
// to agree or disagree with and are left out. Precision, recall and F1 are 0
// when their denominator is.
type Detection struct {
	TP        int     `json:"tp"` // contradiction detected on a contradiction item
	FP        int     `json:"fp"` // contradiction detected on a match or ambiguous item
	FN        int     `json:"fn"` // contradiction item not detected
	TN        int     `json:"tn"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// PolarityMetrics are what the classifier records about the polarity of
// corrections at some thresholds. A contradiction item is handled correctly
// when it is recorded as a counterexample on its own rule (auto_match,
// polarity −1), sent to confirmation, or lands in new_rule (nothing recorded
// on a rule); it is a polarity error when it is recorded as a reinforcement
// (auto_match, polarity +1) of any rule, the worst mistake the service can
// make. A match or ambiguous item recorded as a counterexample (auto_match,
// polarity −1) is a polarity false alarm. Rates are 0 when their
// denominator is.
type PolarityMetrics struct {
	Contradictions int `json:"contradictions"`
	Countered      int `json:"countered"`            // auto counterexample on the item's rule
	CounteredOther int `json:"countered_other_rule"` // auto counterexample on another rule (wrong rule, not a polarity error)
	Reinforced     int `json:"reinforced"`           // auto reinforcement of any rule: the polarity errors
	Confirm        int `json:"confirm"`              // sent to confirmation
	Nothing        int `json:"nothing"`              // new_rule: nothing recorded on a rule
	Handled        int `json:"handled"`              // Countered + Confirm + Nothing

	ErrorRate   float64 `json:"error_rate"`   // Reinforced / Contradictions
	HandledRate float64 `json:"handled_rate"` // Handled / Contradictions

	Affirmations   int     `json:"affirmations"` // match and ambiguous items
	FalseAlarms    int     `json:"false_alarms"` // of them, auto counterexamples
	FalseAlarmRate float64 `json:"false_alarm_rate"`

	Detector Detection `json:"detector"`
}

// ScorePolarity computes the PolarityMetrics of items at t, deciding each
// item's band with Scored.DecisionAt (guard as given).
func ScorePolarity(items []Scored, t classifier.Thresholds, guard bool) PolarityMetrics {
	var m PolarityMetrics
	for _, s := range items {
		switch {
		case s.Kind == KindContradiction:
			m.Contradictions++
			if s.Counters() {
				m.Detector.TP++
			} else {
				m.Detector.FN++
			}
			switch s.DecisionAt(t, guard) {
			case classifier.DecisionAutoMatch:
				switch {
				case !s.Counters():
					m.Reinforced++
				case s.Accepts(s.Top):
					m.Countered++
				default:
					m.CounteredOther++
				}
			case classifier.DecisionConfirm:
				m.Confirm++
			default:
				m.Nothing++
			}
		case Affirms(s.Kind):
			m.Affirmations++
			if s.Counters() {
				m.Detector.FP++
			} else {
				m.Detector.TN++
			}
			if s.Counters() && s.DecisionAt(t, guard) == classifier.DecisionAutoMatch {
				m.FalseAlarms++
			}
		}
	}
	return m.finish()
}

// finish computes the rates from the counts.
func (m PolarityMetrics) finish() PolarityMetrics {
	m.Handled = m.Countered + m.Confirm + m.Nothing
	m.ErrorRate = ratio(m.Reinforced, m.Contradictions)
	m.HandledRate = ratio(m.Handled, m.Contradictions)
	m.FalseAlarmRate = ratio(m.FalseAlarms, m.Affirmations)
	d := &m.Detector
	d.Precision, d.Recall, d.F1 = ratio(d.TP, d.TP+d.FP), ratio(d.TP, d.TP+d.FN), 0
	if d.Precision+d.Recall > 0 {
		d.F1 = 2 * d.Precision * d.Recall / (d.Precision + d.Recall)
	}
	return m
}

// plus adds the counts of a and b (the rates are recomputed by finish).
func (m PolarityMetrics) plus(b PolarityMetrics) PolarityMetrics {
	return PolarityMetrics{
		Contradictions: m.Contradictions + b.Contradictions, Countered: m.Countered + b.Countered,
		CounteredOther: m.CounteredOther + b.CounteredOther, Reinforced: m.Reinforced + b.Reinforced,
		Confirm: m.Confirm + b.Confirm, Nothing: m.Nothing + b.Nothing,
		Affirmations: m.Affirmations + b.Affirmations, FalseAlarms: m.FalseAlarms + b.FalseAlarms,
		Detector: Detection{TP: m.Detector.TP + b.Detector.TP, FP: m.Detector.FP + b.Detector.FP,
			FN: m.Detector.FN + b.Detector.FN, TN: m.Detector.TN + b.Detector.TN},
	}
}

// Error types of PolarityErrors.
const (
	ErrorReinforced = "reinforced"  // a contradiction recorded as a reinforcement
	ErrorFalseAlarm = "false_alarm" // a match or ambiguous item recorded as a counterexample
)

// PolarityErrors returns, at t (guard as given), every contradiction item
// recorded as a reinforcement and every match or ambiguous item recorded as a
// counterexample, most confident first, at most n.
func PolarityErrors(items []Scored, t classifier.Thresholds, guard bool, n int) []ErrorCase {
	var out []ErrorCase
	for _, s := range items {
		if s.DecisionAt(t, guard) != classifier.DecisionAutoMatch {
			continue
		}
		e := ErrorCase{ID: s.ID, Kind: s.Kind, Text: s.Text, Acceptable: s.Acceptable, Predicted: s.Top, Top: s.Top,
			Score: s.Score, ExpectedScore: s.ExpectedScore, ExpectedRank: s.ExpectedRank}
		switch {
		case s.Kind == KindContradiction && !s.Counters():
			e.Type = ErrorReinforced
		case Affirms(s.Kind) && s.Counters():
			e.Type = ErrorFalseAlarm
		default:
			continue
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b ErrorCase) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) })
	return out[:min(n, len(out))]
}
