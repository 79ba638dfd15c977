package eval

import (
	"cmp"
	"slices"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// Scored is one dataset item as the classifier saw it: its best rule and
// score over every rule of the registry, whether the classifier's guard keeps
// it from auto-matching whatever its score, and the classifier's decisions at
// the report's thresholds with the guard on and off.
type Scored struct {
	Item
	Top           string  `json:"top,omitempty"`            // best-scoring rule ("" when no rule scored)
	Score         float64 `json:"score"`                    // its score, rounded as the classifier reports it
	ExpectedScore float64 `json:"expected_score,omitempty"` // best score of an acceptable rule (match, ambiguous)
	ExpectedRank  int     `json:"expected_rank,omitempty"`  // its 1-based rank among all rules
	// Blocked: the classifier with its guard (Config.Guard) refuses to
	// auto-match this text at any threshold (a generic text, a top rule too
	// close to the runner-up, a text it is unsure contradicts its rule);
	// BlockReason is the classifier's reason.
	Blocked     bool   `json:"blocked"`
	BlockReason string `json:"block_reason,omitempty"`
	// NoConfirm: the guard also keeps the text out of the confirm band (it
	// goes to new_rule whatever its score).
	NoConfirm bool `json:"no_confirm,omitempty"`
	// HeldBack: even with the guard disabled the classifier never
	// auto-matches the text (it is unsure whether the text contradicts its
	// top rule, and asks).
	HeldBack bool `json:"held_back,omitempty"`
	// Polarity is what the classifier finds the text says about Top, with
	// its guard disabled: engine.Counter when it contradicts the rule, else
	// engine.Reinforce. It does not depend on the thresholds, and it is what
	// an auto match or a confirmation of Top records.
	Polarity         engine.Polarity    `json:"polarity"`
	Decision         string             `json:"decision"`           // at the report's thresholds, guard on
	DecisionPolarity engine.Polarity    `json:"decision_polarity"`  // the polarity of that decision
	DecisionGuardOff string             `json:"decision_guard_off"` // at the report's thresholds, guard off
	Candidates       []engine.Candidate `json:"candidates"`         // the best few rules
}

// Counters reports whether the classifier would record the item as a
// counterexample (it detected a contradiction).
func (s Scored) Counters() bool { return s.Polarity == engine.Counter }

// DecisionAt is the band the classifier puts the item in at t: auto_match
// when the top score is ≥ t.Auto and nothing holds it back (with guard, the
// guard's block; without, HeldBack), confirm when it is ≥ t.Confirm (and,
// with guard, the guard does not keep it out of confirm), else new_rule.
func (s Scored) DecisionAt(t classifier.Thresholds, guard bool) string {
	score := classifier.RoundScore(s.Score)
	blocked := s.HeldBack
	if guard {
		blocked = s.Blocked
	}
	switch {
	case s.Top == "":
		return classifier.DecisionNewRule
	case score >= t.Auto && !blocked:
		return classifier.DecisionAutoMatch
	case score >= t.Confirm && !(guard && s.NoConfirm):
		return classifier.DecisionConfirm
	}
	return classifier.DecisionNewRule
}

// Prediction is the rule the item is predicted to match at threshold t: the
// top rule when its score is ≥ t (compared as classifier.Thresholds.Band
// does) and, with guard, the guard does not block it; else "".
func (s Scored) Prediction(t float64, guard bool) string {
	if s.Top == "" || classifier.RoundScore(s.Score) < t || guard && s.Blocked {
		return ""
	}
	return s.Top
}

// Metrics are precision, recall and F1 with their counts. Precision is
// TP/(TP+FP) and recall RecallTP/(RecallTP+FN); both are 0 when their
// denominator is (no prediction, nothing to find), and F1 is 0 when both are.
// Overall, RecallTP = TP. Per category, precision groups predictions by the
// predicted rule's category (TP, FP) and recall groups items by the expected
// rule's category (RecallTP, FN), so the two TPs can differ.
type Metrics struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	FN        int     `json:"fn"`
	RecallTP  int     `json:"recall_tp"`
}

func (m Metrics) finish() Metrics {
	m.Precision = ratio(m.TP, m.TP+m.FP)
	m.Recall = ratio(m.RecallTP, m.RecallTP+m.FN)
	if m.Precision+m.Recall > 0 {
		m.F1 = 2 * m.Precision * m.Recall / (m.Precision + m.Recall)
	}
	return m
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Score computes the metrics of rule identification at threshold t, overall
// (micro-averaged) and per category (every category of categories, a rule id
// → category map, is listed even when empty), on the paper's kinds: a
// prediction in acceptable is a TP, any other prediction a FP (so every
// prediction on a new item is one); a match or ambiguous item without a
// prediction in acceptable is a FN. Contradiction items are left out: what
// matters for them is the polarity of what is recorded (ScorePolarity).
func Score(items []Scored, categories map[string]string, t float64, guard bool) (Metrics, map[string]Metrics) {
	var all Metrics
	by := map[string]Metrics{}
	for _, c := range categories {
		by[c] = Metrics{}
	}
	bump := func(cat string, f func(*Metrics)) {
		if categories == nil {
			return
		}
		m := by[cat]
		f(&m)
		by[cat] = m
	}
	for _, s := range items {
		if s.Kind == KindContradiction {
			continue
		}
		p := s.Prediction(t, guard)
		hit := s.Accepts(p)
		if p != "" {
			if hit {
				all.TP++
				bump(categories[p], func(m *Metrics) { m.TP++ })
			} else {
				all.FP++
				bump(categories[p], func(m *Metrics) { m.FP++ })
			}
		}
		if s.Kind == KindNew {
			continue
		}
		if hit {
			all.RecallTP++
			bump(categories[s.Expected], func(m *Metrics) { m.RecallTP++ })
		} else {
			all.FN++
			bump(categories[s.Expected], func(m *Metrics) { m.FN++ })
		}
	}
	for c, m := range by {
		by[c] = m.finish()
	}
	return all.finish(), by
}

// SweepPoint is the overall metrics at one threshold.
type SweepPoint struct {
	Threshold   float64 `json:"threshold"`
	Precision   float64 `json:"precision"`
	Recall      float64 `json:"recall"`
	F1          float64 `json:"f1"`
	TP          int     `json:"tp"`
	FP          int     `json:"fp"`
	FN          int     `json:"fn"`
	Predictions int     `json:"predictions"`
}

// Sweep steps, in hundredths: 0.30 to 0.95 by 0.01. Thresholds
// are computed as i/100 from integers so they carry no accumulated float error.
const (
	SweepFrom = 30
	SweepTo   = 95
)

// Sweep returns the overall metrics at every threshold from/100, (from+1)/100,
// …, to/100. Recall never increases along it: a higher threshold only removes
// predictions.
func Sweep(items []Scored, guard bool, from, to int) []SweepPoint {
	out := make([]SweepPoint, 0, max(0, to-from+1))
	for i := from; i <= to; i++ {
		t := float64(i) / 100
		m, _ := Score(items, nil, t, guard)
		out = append(out, SweepPoint{Threshold: t, Precision: m.Precision, Recall: m.Recall, F1: m.F1,
			TP: m.TP, FP: m.FP, FN: m.FN, Predictions: m.TP + m.FP})
	}
	return out
}

// BandCounts is how the items of one kind fell in the classifier's bands.
type BandCounts struct {
	Items       int `json:"items"`
	Auto        int `json:"auto"`
	Confirm     int `json:"confirm"`
	New         int `json:"new"`
	AutoCorrect int `json:"auto_correct"` // auto matches to an acceptable rule
	// ConfirmTopAcceptable counts confirm-band items whose top candidate (the
	// one the user is asked about first) is acceptable; ConfirmTopRate is its
	// share of Confirm (0 when Confirm is).
	ConfirmTopAcceptable int     `json:"confirm_top_acceptable"`
	ConfirmTopRate       float64 `json:"confirm_top_rate"`
}

// Bands counts, per kind, the classifier's decisions (guard on, or with
// guardOff the decisions made with the guard disabled). An auto match of a
// contradiction item is correct only on its rule and as a counterexample;
// of any other item, on an acceptable rule (whatever its polarity: polarity
// false alarms are counted by ScorePolarity).
func Bands(items []Scored, guardOff bool) map[string]BandCounts {
	out := map[string]BandCounts{}
	for _, k := range Kinds {
		out[k] = BandCounts{}
	}
	for _, s := range items {
		b := out[s.Kind]
		b.Items++
		d := s.Decision
		if guardOff {
			d = s.DecisionGuardOff
		}
		switch d {
		case classifier.DecisionAutoMatch:
			b.Auto++
			if s.Accepts(s.Top) && (s.Kind != KindContradiction || s.Counters()) {
				b.AutoCorrect++
			}
		case classifier.DecisionConfirm:
			b.Confirm++
			if s.Accepts(s.Top) {
				b.ConfirmTopAcceptable++
			}
		default:
			b.New++
		}
		b.ConfirmTopRate = ratio(b.ConfirmTopAcceptable, b.Confirm)
		out[s.Kind] = b
	}
	return out
}

// ErrorCase is a false positive or false negative at a threshold.
type ErrorCase struct {
	Type          string   `json:"type"` // "fp" or "fn"; ErrorReinforced or ErrorFalseAlarm
	ID            string   `json:"id"`
	Kind          string   `json:"kind"`
	Text          string   `json:"text"`
	Acceptable    []string `json:"acceptable"`
	Predicted     string   `json:"predicted,omitempty"` // "" when nothing was predicted
	Top           string   `json:"top,omitempty"`
	Score         float64  `json:"score"`
	ExpectedScore float64  `json:"expected_score,omitempty"`
	ExpectedRank  int      `json:"expected_rank,omitempty"`
	Reason        string   `json:"reason,omitempty"` // the guard's, when it blocked the item
}

// WorstErrors returns at most n false positives, most confident first, and at
// most n false negatives, those whose right rule scored lowest first, of rule
// identification (contradiction items are not in it).
func WorstErrors(items []Scored, t float64, guard bool, n int) (fps, fns []ErrorCase) {
	for _, s := range items {
		if s.Kind == KindContradiction {
			continue
		}
		p := s.Prediction(t, guard)
		e := ErrorCase{ID: s.ID, Kind: s.Kind, Text: s.Text, Acceptable: s.Acceptable, Predicted: p, Top: s.Top,
			Score: s.Score, ExpectedScore: s.ExpectedScore, ExpectedRank: s.ExpectedRank}
		if guard && s.Blocked && s.Prediction(t, false) != "" {
			e.Reason = s.BlockReason // the guard, not the score, withheld the prediction
		}
		if p != "" && !s.Accepts(p) {
			e.Type = "fp"
			fps = append(fps, e)
		}
		if s.Kind != KindNew && !s.Accepts(p) {
			e.Type = "fn"
			fns = append(fns, e)
		}
	}
	slices.SortStableFunc(fps, func(a, b ErrorCase) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) })
	slices.SortStableFunc(fns, func(a, b ErrorCase) int {
		return cmp.Or(cmp.Compare(a.ExpectedScore, b.ExpectedScore), cmp.Compare(a.ID, b.ID))
	})
	return fps[:min(n, len(fps))], fns[:min(n, len(fns))]
}

// Ranking is how well the scores order the rules, whatever the thresholds:
// the share of items with an acceptable rule first, and within the first
// three.
type Ranking struct {
	Items int     `json:"items"`
	Top1  float64 `json:"top1"`
	Top3  float64 `json:"top3"`
}

// Rank computes the Ranking of the match and ambiguous items.
func Rank(items []Scored) Ranking { return RankKinds(items, KindMatch, KindAmbiguous) }

// RankKinds computes the Ranking of the items of the given kinds.
func RankKinds(items []Scored, kinds ...string) Ranking {
	var r Ranking
	var top1, top3 int
	for _, s := range items {
		if !slices.Contains(kinds, s.Kind) {
			continue
		}
		r.Items++
		if s.ExpectedRank == 1 {
			top1++
		}
		if s.ExpectedRank >= 1 && s.ExpectedRank <= 3 {
			top3++
		}
	}
	r.Top1, r.Top3 = ratio(top1, r.Items), ratio(top3, r.Items)
	return r
}
