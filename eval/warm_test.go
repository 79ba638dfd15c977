package eval

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/classifier"
)

// TestLearnedFrom: a match or ambiguous item affirms its expected rule, a
// contradiction is a contrary exemplar of it, a new item teaches nothing.
func TestLearnedFrom(t *testing.T) {
	items := []Item{
		{ID: "m", Kind: KindMatch, Expected: "r.a", Text: "match text"},
		{ID: "a", Kind: KindAmbiguous, Expected: "r.b", Acceptable: []string{"r.b", "r.a"}, Text: "ambiguous text"},
		{ID: "c", Kind: KindContradiction, Expected: "r.a", Text: "contradiction text"},
		{ID: "n", Kind: KindNew, Text: "new text"},
	}
	want := []classifier.Learned{
		{RuleID: "r.a", Text: "match text", Affirms: true},
		{RuleID: "r.b", Text: "ambiguous text", Affirms: true},
		{RuleID: "r.a", Text: "contradiction text"},
	}
	if d := cmp.Diff(want, learnedFrom(items)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestWarmGroups: every item is classified once; no item learns from
// itself; held-out items learn from every dev item and teach nothing; a dev
// item learns from the dev items of the other folds; without a split every
// item learns from the other folds.
func TestWarmGroups(t *testing.T) {
	items := MustShipped(t).Items
	for _, split := range []bool{true, false} {
		groups, learned, method := warmGroups(items, split)
		if method == "" || len(groups) != len(learned) {
			t.Fatalf("split %v: %d groups, %d learned sets, method %q", split, len(groups), len(learned), method)
		}
		seen := make([]int, len(items))
		var devTexts []string
		for _, it := range items {
			if it.Split == SplitDev && it.Kind != KindNew {
				devTexts = append(devTexts, it.Text)
			}
		}
		for g, idx := range groups {
			texts := map[string]bool{}
			for _, l := range learned[g] {
				texts[l.Text] = true
				if split && !slices.Contains(devTexts, l.Text) {
					t.Errorf("split: group %d learns from %q, not a dev item", g, l.Text)
				}
			}
			for _, i := range idx {
				seen[i]++
				if texts[items[i].Text] {
					t.Errorf("split %v: item %s learns from itself", split, items[i].ID)
				}
			}
		}
		for i, n := range seen {
			if n != 1 {
				t.Errorf("split %v: item %s is in %d groups, want 1", split, items[i].ID, n)
			}
		}
		if split {
			last := groups[len(groups)-1]
			tests := 0
			for _, it := range items {
				if it.Split == SplitTest {
					tests++
				}
			}
			if len(last) != tests || items[last[0]].Split != SplitTest || len(learned[len(learned)-1]) != len(devTexts) {
				t.Errorf("the held-out group: %d items learning from %d exemplars; want the %d test items learning from all %d dev items",
					len(last), len(learned[len(learned)-1]), tests, len(devTexts))
			}
		}
	}
}

// TestRunWarm: the report has a warm section over every item, with the
// held-out items' exemplars counted and the targets measured.
func TestRunWarm(t *testing.T) {
	r := MustLexicalReport(t)
	if r.Warm == nil {
		t.Fatal("no warm report")
	}
	w := r.Warm
	// The held-out items learn from every dev item that is about a rule.
	exemplars := 0
	for _, it := range MustShipped(t).Items {
		if it.Split == SplitDev && it.Kind != KindNew {
			exemplars++
		}
	}
	if len(w.Results) != len(r.Results) || w.Learned != exemplars || len(w.Targets.Targets) != 4 || w.Calibration.Method != splitMethod || len(w.Splits) != 2 {
		t.Errorf("warm: %d results (want %d), %d exemplars (want %d), %d targets, method %q, %d splits",
			len(w.Results), len(r.Results), w.Learned, exemplars, len(w.Targets.Targets), w.Calibration.Method, len(w.Splits))
	}
	for i := range w.Results {
		if w.Results[i].ID != r.Results[i].ID {
			t.Fatalf("warm result %d is %s, cold %s: not in the dataset's order", i, w.Results[i].ID, r.Results[i].ID)
		}
	}
}
