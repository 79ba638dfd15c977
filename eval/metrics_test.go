package eval

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lexsona/lexsona/classifier"
)

var handCategories = map[string]string{"r.a": "catA", "r.b": "catA", "r.c": "catB", "r.d": "catB"}

// handItems are scored by hand; the comments give each one's outcome at 0.5
// with the guard off: precision side (by predicted rule's category) / recall
// side (by expected rule's category).
func handItems() []Scored {
	blocked := item("9", KindMatch, []string{"r.b"}, "r.b", 0.95)
	blocked.Blocked, blocked.BlockReason = true, "generic: test"
	return []Scored{
		item("1", KindMatch, []string{"r.a"}, "r.a", 0.9),             // TP catA / TP catA
		item("2", KindMatch, []string{"r.a"}, "r.c", 0.8),             // FP catB / FN catA
		item("3", KindMatch, []string{"r.c"}, "r.c", 0.4),             // no prediction / FN catB
		item("4", KindNew, nil, "r.a", 0.7),                           // FP catA
		item("5", KindNew, nil, "r.d", 0.3),                           // nothing
		item("6", KindAmbiguous, []string{"r.b", "r.c"}, "r.c", 0.6),  // TP catB / TP catA
		item("7", KindAmbiguous, []string{"r.d", "r.a"}, "r.b", 0.55), // FP catA / FN catB
		item("8", KindMatch, []string{"r.d"}, "r.d", 0.4999999),       // rounds to 0.5: TP catB / TP catB
		blocked, // guard off: TP catA / TP catA; guard on: FN catA
	}
}

func TestScoreHandBuilt(t *testing.T) {
	approx := cmpopts.EquateApprox(0, 1e-12)
	for _, tc := range []struct {
		name    string
		guard   bool
		overall Metrics
		by      map[string]Metrics
	}{
		{
			name:    "guard off",
			overall: Metrics{Precision: 4.0 / 7, Recall: 4.0 / 7, F1: 4.0 / 7, TP: 4, FP: 3, FN: 3, RecallTP: 4},
			by: map[string]Metrics{
				"catA": {Precision: 0.5, Recall: 0.75, F1: 0.6, TP: 2, FP: 2, FN: 1, RecallTP: 3},
				"catB": {Precision: 2.0 / 3, Recall: 1.0 / 3, F1: 4.0 / 9, TP: 2, FP: 1, FN: 2, RecallTP: 1},
			},
		},
		{
			name:    "guard on: item 9 is blocked",
			guard:   true,
			overall: Metrics{Precision: 0.5, Recall: 3.0 / 7, F1: 2 * 0.5 * (3.0 / 7) / (0.5 + 3.0/7), TP: 3, FP: 3, FN: 4, RecallTP: 3},
			by: map[string]Metrics{
				"catA": {Precision: 1.0 / 3, Recall: 0.5, F1: 0.4, TP: 1, FP: 2, FN: 2, RecallTP: 2},
				"catB": {Precision: 2.0 / 3, Recall: 1.0 / 3, F1: 4.0 / 9, TP: 2, FP: 1, FN: 2, RecallTP: 1},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			overall, by := Score(handItems(), handCategories, 0.5, tc.guard)
			if d := cmp.Diff(tc.overall, overall, approx); d != "" {
				t.Errorf("overall (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.by, by, approx); d != "" {
				t.Errorf("by category (-want +got):\n%s", d)
			}
		})
	}
}

func TestScoreEmpty(t *testing.T) {
	overall, by := Score(nil, handCategories, 0.5, true)
	if overall != (Metrics{}) || len(by) != 2 || by["catA"] != (Metrics{}) {
		t.Errorf("Score(nil) = %+v %+v: want zeros and every category listed", overall, by)
	}
	// Nothing predicted: precision is 0 (not NaN), recall 0.
	m, _ := Score([]Scored{item("1", KindMatch, []string{"r.a"}, "r.a", 0.1)}, nil, 0.5, false)
	if m != (Metrics{FN: 1}) {
		t.Errorf("no prediction: %+v", m)
	}
}

func TestPredictionComparesRoundedScores(t *testing.T) {
	s := item("x", KindMatch, []string{"r.a"}, "r.a", 0.69999999)
	if s.Prediction(0.70, false) != "r.a" || s.Prediction(0.71, false) != "" {
		t.Error("0.69999999 must count as 0.70, as classifier.Thresholds.Band does")
	}
	if got := (classifier.Thresholds{Auto: 0.70, Confirm: 0.5}).Band(0.69999999); got != classifier.DecisionAutoMatch {
		t.Errorf("Band = %s: the classifier changed how it rounds", got)
	}
}

func TestSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rules := []string{"r.a", "r.b", "r.c", "r.d"}
	var items []Scored
	findable := 0
	for i := range 500 {
		kind := Kinds[i%3]
		var acc []string
		if kind != KindNew {
			acc = []string{rules[rng.IntN(4)]}
			if kind == KindAmbiguous {
				acc = append(acc, rules[(rng.IntN(3)+1+len(acc))%4])
			}
		}
		s := item("i", kind, acc, rules[rng.IntN(4)], rng.Float64())
		s.Blocked = rng.IntN(5) == 0
		items = append(items, s)
		if kind != KindNew {
			findable++
		}
	}
	for _, guard := range []bool{false, true} {
		sw := Sweep(items, guard, SweepFrom, SweepTo)
		if len(sw) != 66 || sw[0].Threshold != 0.30 || sw[65].Threshold != 0.95 || sw[55].Threshold != 0.85 {
			t.Fatalf("sweep has %d points from %v to %v", len(sw), sw[0].Threshold, sw[len(sw)-1].Threshold)
		}
		for i, p := range sw {
			if p.Threshold != float64(SweepFrom+i)/100 {
				t.Errorf("point %d threshold %v: float drift", i, p.Threshold)
			}
			if p.TP+p.FN != findable { // match and ambiguous items
				t.Errorf("at %.2f TP+FN = %d", p.Threshold, p.TP+p.FN)
			}
			if i > 0 && p.Recall > sw[i-1].Recall {
				t.Errorf("guard %v: recall rises from %.4f at %.2f to %.4f at %.2f", guard, sw[i-1].Recall, sw[i-1].Threshold, p.Recall, p.Threshold)
			}
			if i > 0 && p.Predictions > sw[i-1].Predictions {
				t.Errorf("guard %v: predictions rise at %.2f", guard, p.Threshold)
			}
		}
	}
}

func TestBands(t *testing.T) {
	items := handItems()
	decisions := []string{"auto_match", "auto_match", "confirm", "confirm", "new_rule", "confirm", "confirm", "new_rule", "confirm"}
	for i := range items {
		items[i].Decision = decisions[i]
		items[i].DecisionGuardOff = decisions[i]
	}
	items[8].DecisionGuardOff = "auto_match"
	want := map[string]BandCounts{
		KindMatch:         {Items: 5, Auto: 2, AutoCorrect: 1, Confirm: 2, ConfirmTopAcceptable: 2, ConfirmTopRate: 1, New: 1},
		KindNew:           {Items: 2, Confirm: 1, New: 1},
		KindAmbiguous:     {Items: 2, Confirm: 2, ConfirmTopAcceptable: 1, ConfirmTopRate: 0.5},
		KindContradiction: {},
	}
	if d := cmp.Diff(want, Bands(items, false)); d != "" {
		t.Errorf("guard on (-want +got):\n%s", d)
	}
	off := Bands(items, true)[KindMatch]
	if off.Auto != 3 || off.AutoCorrect != 2 || off.Confirm != 1 {
		t.Errorf("guard off, match: %+v", off)
	}
}

func TestWorstErrors(t *testing.T) {
	fps, fns := WorstErrors(handItems(), 0.5, true, 10)
	var got []string
	for _, e := range append(fps, fns...) {
		got = append(got, e.Type+e.ID)
	}
	// FPs most confident first; FNs with the lowest right-rule score first
	// (all 0 here: ties by id).
	if d := cmp.Diff([]string{"fp2", "fp4", "fp7", "fn2", "fn3", "fn7", "fn9"}, got); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
	if fns[3].Reason == "" {
		t.Error("item 9's false negative should carry the guard's reason")
	}
	if fps, fns := WorstErrors(handItems(), 0.5, true, 1); len(fps) != 1 || len(fns) != 1 || fps[0].Score != 0.8 {
		t.Errorf("n = 1: %v %v", fps, fns)
	}
}

func TestRank(t *testing.T) {
	items := handItems()
	for i, r := range []int{1, 2, 1, 0, 0, 4, 3, 1, 1} {
		items[i].ExpectedRank = r
	}
	got := Rank(items)
	if got.Items != 7 || math.Abs(got.Top1-4.0/7) > 1e-12 || math.Abs(got.Top3-6.0/7) > 1e-12 {
		t.Errorf("Rank = %+v", got)
	}
}
