package eval

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/lexsona/lexsona/classifier"
)

// This file measures whether a small trained scoring head — a logistic
// regression over what the classifier already computes for its top
// candidate — separates right from wrong top rules better than the
// product's score alone. Everything is measured by Folds-fold
// cross-validation (stratified by kind) inside the items the thresholds are
// chosen on (the dev split, or every item without one), so the held-out
// split never takes part.

// HeadFeature names one input of a scoring head.
const (
	HeadScore   = "score"   // the product's score of the top rule
	HeadMargin  = "margin"  // its lead over the runner-up
	HeadDense   = "dense"   // the top rule's embedding cosine alone (the paper's method)
	HeadWords   = "words"   // the correction's content words (classifier.ContentWords)
	HeadOverlap = "overlap" // content words shared with the top rule's template
)

// headSets are the feature sets compared, simplest first.
var headSets = [][]string{
	{HeadScore},
	{HeadScore, HeadMargin},
	{HeadScore, HeadMargin, HeadWords, HeadOverlap},
	{HeadScore, HeadMargin, HeadDense, HeadWords, HeadOverlap},
}

// HeadRow is one scorer's cross-validated auto band: each fold's auto
// threshold is the lowest (on its score, or on the head's probability)
// reaching the auto precision target on the other folds, guard on, and the
// held-out folds' predictions are pooled. ECE is that of the pooled
// out-of-fold probabilities (heads only).
type HeadRow struct {
	Scorer   string   `json:"scorer"` // "score" or "logistic(features)"
	Features []string `json:"features,omitempty"`
	Auto     Metrics  `json:"auto"`
	ECE      *float64 `json:"ece,omitempty"`
}

// HeadCheck compares the product's score with scoring heads.
type HeadCheck struct {
	Method string    `json:"method"`
	Items  int       `json:"items"`
	Target float64   `json:"target_auto"`
	Rows   []HeadRow `json:"rows"`
}

// checkHead builds the HeadCheck of scored (dense: the same items scored
// with the paper's method, nil when there is none) for the auto precision
// target. templates maps a rule id to its template.
func checkHead(scored, dense []Scored, templates map[string]string, target float64) *HeadCheck {
	var items []Scored
	var feats [][]float64
	method := "5-fold cross-validation inside all items"
	if len(scored) > 0 && scored[0].Split != "" {
		method = "5-fold cross-validation inside dev"
	}
	for i, s := range scored {
		if s.Kind == KindContradiction || s.Top == "" || (s.Split != "" && s.Split != SplitDev) {
			continue
		}
		var d *Scored
		if dense != nil {
			d = &dense[i]
		}
		items = append(items, s)
		feats = append(feats, headFeatures(s, d, templates))
	}
	c := &HeadCheck{Method: method, Items: len(items), Target: target}
	if len(items) == 0 {
		return c
	}
	folds := foldsOf(items)
	c.Rows = append(c.Rows, HeadRow{Scorer: HeadScore, Auto: cvAuto(items, folds, target, nil)})
	for _, set := range headSets {
		if dense == nil && slices.Contains(set, HeadDense) {
			continue
		}
		cols := headColumns(set)
		oof := make([]float64, len(items))
		probs := func(train, held []int) ([]float64, []float64) {
			w := make([]float64, len(cols)+1) // σ(0) = 0.5 when there is nothing to fit on
			if len(train) > 0 {
				w = fitLogistic(headRows(feats, train, cols), outcomes(items, train))
			}
			return predictHead(w, feats, train, cols), predictHead(w, feats, held, cols)
		}
		auto := cvAuto(items, folds, target, func(train, held []int) ([]float64, []float64) {
			pt, ph := probs(train, held)
			for j, i := range held {
				oof[i] = ph[j]
			}
			return pt, ph
		})
		ece, _ := ECE(oof, outcomes(items, nil))
		c.Rows = append(c.Rows, HeadRow{Scorer: "logistic(" + strings.Join(set, ", ") + ")", Features: set, Auto: auto, ECE: &ece})
	}
	return c
}

// headFeatures are s's inputs, in the order of the HeadFeature constants;
// d is s scored with the paper's method (nil: its dense is the score).
func headFeatures(s Scored, d *Scored, templates map[string]string) []float64 {
	score, margin := features(s)
	dense := score
	if d != nil && len(d.Candidates) > 0 {
		dense = d.Candidates[len(d.Candidates)-1].Score // at most this when not listed
		for _, c := range d.Candidates {
			if c.RuleID == s.Top {
				dense = c.Score
				break
			}
		}
	}
	words := float64(len(classifier.ContentWords(s.Text)))
	overlap := float64(len(SharedContentWords(s.Text, templates[s.Top])))
	return []float64{score, margin, dense, words, overlap}
}

// headColumns maps feature names to their columns in headFeatures.
func headColumns(set []string) []int {
	all := []string{HeadScore, HeadMargin, HeadDense, HeadWords, HeadOverlap}
	cols := make([]int, len(set))
	for i, f := range set {
		for j, a := range all {
			if a == f {
				cols[i] = j
			}
		}
	}
	return cols
}

// headRows are the design rows (a constant 1, then cols) of the items idx.
func headRows(feats [][]float64, idx []int, cols []int) [][]float64 {
	out := make([][]float64, len(idx))
	for r, i := range idx {
		row := []float64{1}
		for _, c := range cols {
			row = append(row, feats[i][c])
		}
		out[r] = row
	}
	return out
}

// predictHead is σ(w·row) for the items idx.
func predictHead(w []float64, feats [][]float64, idx []int, cols []int) []float64 {
	out := make([]float64, len(idx))
	for r, row := range headRows(feats, idx, cols) {
		z := 0.0
		for j := range row {
			z += w[j] * row[j]
		}
		out[r] = 1 / (1 + math.Exp(-z))
	}
	return out
}

// outcomes are the items' outcomes (1: the top rule is acceptable), of idx
// or of every item when idx is nil.
func outcomes(items []Scored, idx []int) []float64 {
	if idx == nil {
		idx = make([]int, len(items))
		for i := range idx {
			idx[i] = i
		}
	}
	y := make([]float64, len(idx))
	for r, i := range idx {
		y[r] = outcome(items[i])
	}
	return y
}

// cvAuto pools, over the folds, the held-out auto-band metrics at the lowest
// threshold reaching target on the training folds (guard on). score, when
// set, gives the training and held-out items' new scores (a head's
// probabilities); nil keeps the product's score.
func cvAuto(items []Scored, folds []int, target float64, score func(train, held []int) ([]float64, []float64)) Metrics {
	var pooled Metrics
	for f := range Folds {
		var train, held []int
		for i := range items {
			if folds[i] == f {
				held = append(held, i)
			} else {
				train = append(train, i)
			}
		}
		tr, he := pick(items, train), pick(items, held)
		if score != nil {
			pt, ph := score(train, held)
			rescore(tr, pt)
			rescore(he, ph)
		}
		t, _ := lowestReaching(tr, target, true)
		m, _ := Score(he, nil, t, true)
		pooled = add(pooled, m)
	}
	return pooled.finish()
}

// pick copies the items idx.
func pick(items []Scored, idx []int) []Scored {
	out := make([]Scored, len(idx))
	for r, i := range idx {
		out[r] = items[i]
	}
	return out
}

// rescore replaces the items' scores by p.
func rescore(items []Scored, p []float64) {
	for i := range items {
		items[i].Score = p[i]
	}
}

// writeHeadText prints h for people: each scorer's cross-validated auto
// band, and the ECE of each head's out-of-fold probabilities.
func writeHeadText(w io.Writer, h *HeadCheck) {
	if h == nil || len(h.Rows) == 0 {
		return
	}
	fmt.Fprintf(w, "Scoring head (%s, %d items; each fold's auto threshold the lowest reaching precision %.2f on the other folds, guard on, no margin)\n", h.Method, h.Items, h.Target)
	for _, r := range h.Rows {
		ece := ""
		if r.ECE != nil {
			ece = fmt.Sprintf("; out-of-fold ECE %.3f", *r.ECE)
		}
		fmt.Fprintf(w, "  %-60s P %.3f (%d/%d) R %.3f%s\n", r.Scorer, r.Auto.Precision, r.Auto.TP, r.Auto.TP+r.Auto.FP, r.Auto.Recall, ece)
	}
	fmt.Fprintln(w)
}
