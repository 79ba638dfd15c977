package classifier

import (
	"math"
	"testing"
)

// TestLeanModel: two rules whose contrary texts lie along the same axis (e3)
// from their affirming ones give that axis as the shared direction; a text
// on the contrary side of a rule's midpoint leans positive, one on the
// affirming side negative; a rule without contrary texts, an unknown rule
// and a vector of the wrong length give NaN.
func TestLeanModel(t *testing.T) {
	const dims = 4
	v := func(xs ...float32) []float32 { return xs }
	affirm := []Row{
		{"r.a", v(1, 0, 0, 0)}, {"r.a", v(0.8, 0.6, 0, 0)},
		{"r.b", v(0, 1, 0, 0)},
		{"r.c", v(0, 0, 1, 0)},
	}
	contrary := []Row{
		{"r.a", v(0.9, 0.3, 0, 0.4)},
		{"r.b", v(0, 1, 0, 0.5)}, {"r.b", v(0, 1, 0, 0.3)},
		{"r.x", v(0, 0, 0, 1)}, // not in ids: ignored
	}
	ids := []string{"r.a", "r.b", "r.c"}
	m := newLeanModel(dims, ids, affirm, contrary)
	if m == nil {
		t.Fatal("no model")
	}
	if math.Abs(float64(m.dir[3])-1) > 1e-6 || math.Abs(float64(m.dir[0])) > 1e-6 || math.Abs(float64(m.dir[1])) > 1e-6 {
		t.Errorf("direction %v, want e3", m.dir)
	}
	for _, tt := range []struct {
		q    []float32
		rule int
		want float64
	}{
		{v(1, 0, 0, 0.4), 0, 0.2},      // r.a's midpoint is at 0.2 along e3
		{v(1, 0, 0, 0), 0, -0.2},       // on r.a's affirming side
		{v(0, 1, 0, 0.2), 1, 0},        // r.b's midpoint: (0 + 0.4) / 2
		{v(0, 0, 1, 1), 2, math.NaN()}, // r.c has no contrary texts
		{v(1, 0, 0, 1), 3, math.NaN()}, // no such rule
		{v(1, 0, 0), 0, math.NaN()},    // wrong length
	} {
		got := m.lean(tt.q, tt.rule)
		if math.IsNaN(tt.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("lean(%v, %d) = %v, want %v", tt.q, tt.rule, got, tt.want)
		}
	}
	if newLeanModel(dims, ids, affirm, nil) != nil {
		t.Error("a model without contrary texts")
	}
	if newLeanModel(0, ids, affirm, contrary) != nil {
		t.Error("a model of 0 dimensions")
	}
	var none *leanModel
	if !math.IsNaN(none.lean(v(1, 0, 0, 0), 0)) {
		t.Error("a nil model leans")
	}
}
