package eval

import (
	"context"
	"fmt"
	"io"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/models"
)

// WarmReport is the classifier after some use: every item classified again
// with other labelled items fed to it as learned exemplars (the corrections
// a user would have confirmed by then: a match or ambiguous item affirms its
// expected rule, a contradiction item is a contrary exemplar of it, a new
// item teaches nothing). An item never learns from itself: a held-out item
// learns from every dev item, a dev item from the dev items of the other
// Folds folds (without a split, every item from the other folds). The
// numbers are read exactly like the cold report's.
type WarmReport struct {
	// Method says what each item learned from; Learned is how many
	// exemplars the held-out items had.
	Method      string                `json:"method"`
	Learned     int                   `json:"learned"`
	Overall     Metrics               `json:"overall"` // at Report.Thresholds.Auto, guard on
	Bands       map[string]BandCounts `json:"bands"`
	Calibration CalibrationReport     `json:"calibration"`
	// CrossValidation is as in Report.
	CrossValidation *CalibrationReport `json:"cross_validation,omitempty"`
	Targets         Targets            `json:"targets"`
	Splits          []SplitView        `json:"splits,omitempty"`
	Ranking         Ranking            `json:"ranking"`
	Polarity        PolarityReport     `json:"polarity"`
	Head            *HeadCheck         `json:"head,omitempty"` // as in Report
	Results         []Scored           `json:"results"`
}

// learnedCorpus is a corpus with learned exemplars of its own in place of
// the store's.
type learnedCorpus struct {
	classifier.Corpus
	learned []classifier.Learned
}

func (c learnedCorpus) Learned(context.Context) ([]classifier.Learned, error) { return c.learned, nil }

// learnedFrom returns what items teach as learned exemplars (see WarmReport).
func learnedFrom(items []Item) []classifier.Learned {
	var out []classifier.Learned
	for _, it := range items {
		switch {
		case it.Expected == "":
		case Affirms(it.Kind):
			out = append(out, classifier.Learned{RuleID: it.Expected, Text: it.Text, Affirms: true})
		case it.Kind == KindContradiction:
			out = append(out, classifier.Learned{RuleID: it.Expected, Text: it.Text})
		}
	}
	return out
}

// warmGroups splits items into groups classified with the same learned
// exemplars: with a split, the test items (learning from all dev items) and
// Folds groups of dev items (each learning from the other dev groups);
// without, Folds groups of all items. Folds are assigned round-robin within
// each kind. It returns the groups as item indices with what each learns,
// and the description of the method.
func warmGroups(items []Item, split bool) (groups [][]int, learned [][]classifier.Learned, method string) {
	var pool []int // the items that teach
	for i, it := range items {
		if !split || it.Split == SplitDev {
			pool = append(pool, i)
		}
	}
	fold := make([]int, len(items))
	next := map[string]int{}
	for _, i := range pool {
		fold[i] = next[items[i].Kind] % Folds
		next[items[i].Kind]++
	}
	for f := range Folds {
		var in []int
		var teach []Item
		for _, i := range pool {
			if fold[i] == f {
				in = append(in, i)
			} else {
				teach = append(teach, items[i])
			}
		}
		groups, learned = append(groups, in), append(learned, learnedFrom(teach))
	}
	method = fmt.Sprintf("each item learns from the items of the other %d folds", Folds-1)
	if split {
		var test []int
		var dev []Item
		for i, it := range items {
			if it.Split == SplitTest {
				test = append(test, i)
			} else {
				dev = append(dev, it)
			}
		}
		groups, learned = append(groups, test), append(learned, learnedFrom(dev))
		method = fmt.Sprintf("held-out items learn from every dev item; a dev item from the dev items of the other %d folds", Folds-1)
	}
	return groups, learned, method
}

// classifyWarm classifies items as classifyAll does, each with the learned
// exemplars warmGroups gives it, and returns them in the items' order with
// the number of exemplars the last group (the held-out items, with a split)
// learned from.
func classifyWarm(ctx context.Context, corpus classifier.Corpus, emb models.Embedder, rules int, thr classifier.Thresholds, guard classifier.Guard, items []Item, progress io.Writer) ([]Scored, int, error) {
	split := len(items) > 0 && items[0].Split != ""
	groups, learned, _ := warmGroups(items, split)
	out := make([]Scored, len(items))
	for g, idx := range groups {
		sub := make([]Item, len(idx))
		for j, i := range idx {
			sub[j] = items[i]
		}
		scored, err := classifyAll(ctx, learnedCorpus{corpus, learned[g]}, emb, rules, thr, guard, nil, sub, progress)
		if err != nil {
			return nil, 0, err
		}
		for j, i := range idx {
			out[i] = scored[j]
		}
	}
	return out, len(learned[len(learned)-1]), nil
}

// warmReport builds the WarmReport of the warm-scored items at m's
// thresholds.
func warmReport(m meta, scored []Scored, cats map[string]string, learned int, split bool) *WarmReport {
	r := build(m, scored, cats)
	_, _, method := warmGroups(nil, split)
	return &WarmReport{Method: method, Learned: learned, Overall: r.Overall, Bands: r.Bands,
		Calibration: r.Calibration, CrossValidation: r.CrossValidation, Targets: r.Targets, Splits: r.Splits,
		Ranking: r.Ranking, Polarity: r.Polarity, Head: r.Head, Results: scored}
}
