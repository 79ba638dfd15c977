package eval

import (
	"math/rand/v2"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

// headItems are n dev items whose top score says nothing about whether the
// top rule is right, while the lead over the runner-up does: right items
// lead by 0.15–0.25, wrong ones by 0.02–0.06. Every fourth item is new
// (its top rule is always wrong); test-split copies follow them.
func headItems(n int) []Scored {
	rng := rand.New(rand.NewPCG(7, 13))
	var out []Scored
	for _, split := range []string{SplitDev, SplitTest} {
		for i := range n {
			s := item("h", KindMatch, []string{"r.a"}, "r.a", 0)
			if i%4 == 3 {
				s = item("h", KindNew, nil, "r.a", 0)
			} else if i%4 == 2 {
				s.Top = "r.b"
			}
			lead := 0.02 + 0.04*rng.Float64()
			if s.Accepts(s.Top) {
				lead = 0.15 + 0.10*rng.Float64()
			}
			s.Split, s.Score = split, 0.30+0.30*rng.Float64()
			s.Candidates = []engine.Candidate{{RuleID: s.Top, Score: s.Score}, {RuleID: "r.c", Score: s.Score - lead}}
			out = append(out, s)
		}
	}
	return out
}

// TestCheckHead checks that the cross-validation inside dev finds a head
// that separates what the score alone cannot, and leaves the test split out.
func TestCheckHead(t *testing.T) {
	items := headItems(200)
	templates := map[string]string{"r.a": "use the alpha tool", "r.b": "never run beta"}
	h := checkHead(items, nil, templates, 0.95)
	if h.Items != 200 || h.Method != "5-fold cross-validation inside dev" {
		t.Fatalf("items %d, method %q: want the 200 dev items", h.Items, h.Method)
	}
	rows := map[string]HeadRow{}
	for _, r := range h.Rows {
		rows[r.Scorer] = r
		if r.Auto.TP+r.Auto.FN != 150 {
			t.Errorf("%s: TP %d + FN %d, want the 150 dev match items", r.Scorer, r.Auto.TP, r.Auto.FN)
		}
		if (r.Scorer == HeadScore) != (r.ECE == nil) {
			t.Errorf("%s: ECE %v, want one for the heads only", r.Scorer, r.ECE)
		}
	}
	if len(rows) != 4 {
		t.Fatalf("rows %v: want the score and three heads (no dense without dense items)", h.Rows)
	}
	score, margin := rows[HeadScore].Auto, rows["logistic(score, margin)"].Auto
	if score.Precision > 0.8 {
		t.Errorf("score alone: %+v, want precision far below 0.95 (the score is noise)", score)
	}
	// 100 of the 150 match items have a right top rule: all of them, nothing else.
	if margin.Precision < 0.95 || margin.TP < 95 {
		t.Errorf("logistic(score, margin): %+v, want precision ≥ 0.95 and about 100 TP", margin)
	}
	if e := *rows["logistic(score, margin)"].ECE; e > 0.1 {
		t.Errorf("logistic(score, margin): out-of-fold ECE %.3f, want ≤ 0.1", e)
	}
	if got := checkHead(items, items, templates, 0.95); len(got.Rows) != 5 {
		t.Errorf("with dense items: %d rows, want 5", len(got.Rows))
	}
	if got := checkHead(nil, nil, templates, 0.95); got.Items != 0 || len(got.Rows) != 0 {
		t.Errorf("no items: %+v", got)
	}
	// Fewer items than folds: some folds train on nothing.
	if got := checkHead(items[:2], nil, templates, 0.95); got.Items != 2 || len(got.Rows) != 4 {
		t.Errorf("two items: %+v", got)
	}
}
