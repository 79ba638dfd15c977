package classifier

import (
	"math"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

// TestNeighboursNear: the nearest text of the rule is found among its
// affirming and contrary rows, and compared with its best cosine to another
// rule's row (in either index); the result is cached per row; sparse or
// empty indexes, unknown rules and vectors of the wrong length give nothing.
func TestNeighboursNear(t *testing.T) {
	v := func(xs ...float32) []float32 {
		var n float32
		for _, x := range xs {
			n += x * x
		}
		n = float32(math.Sqrt(float64(n)))
		for i := range xs {
			xs[i] /= n
		}
		return xs
	}
	ids := []string{"r.a", "r.b", "r.c"}
	affirm := NewIndex(3, ids, []Row{
		{"r.a", v(1, 0, 0)}, {"r.a", v(0.6, 0.8, 0)},
		{"r.b", v(0, 1, 0)},
	}, nil)
	contrary := NewIndex(3, ids, []Row{
		{"r.c", v(0, 0.6, 0.8)},
		{"r.a", v(0, 0, 1)},
	}, nil)
	n := newNeighbours(affirm, contrary)
	if n == nil {
		t.Fatal("no neighbours for two dense indexes")
	}
	for _, tt := range []struct {
		name      string
		q         []float32
		rule      string
		query     float64
		other     float64
		otherRule string
		ok        bool
	}{
		// r.a's nearest affirming text (0.6, 0.8, 0) lies at 0.8 from r.b's.
		{"nearest text near another rule", v(0.5, 1, 0), "r.a", 0.983870, 0.8, "r.b", true},
		{"nearest text in its own territory", v(1, 0.1, 0), "r.a", 0.995037, 0, "r.b", true}, // (1, 0, 0) is orthogonal to the others
		// r.a's contrary text (0, 0, 1) is nearest; its best other is r.c's (0.8).
		{"nearest text is a contrary one", v(0, 0.1, 1), "r.a", 0.995037, 0.8, "r.c", true},
		{"unknown rule", v(1, 0, 0), "r.x", 0, 0, "", false},
		{"wrong length", []float32{1, 0}, "r.a", 0, 0, "", false},
	} {
		for round := 0; round < 2; round++ { // the second round reads the cache
			got := n.near(tt.q, tt.rule, engine.Scope{})
			if got.ok != tt.ok || got.otherRule != tt.otherRule || math.Abs(got.query-tt.query) > 1e-5 || math.Abs(got.other-tt.other) > 1e-5 {
				t.Errorf("%s (round %d): near = %+v, want query %.4f other %.4f (%s) ok %v", tt.name, round, got, tt.query, tt.other, tt.otherRule, tt.ok)
			}
		}
	}
	if newNeighbours(NewIndex(3, ids, nil, nil), contrary) != nil {
		t.Error("neighbours over an empty affirming index: want none")
	}
	var none *neighbours
	if got := none.near(v(1, 0, 0), "r.a", engine.Scope{}); got.ok {
		t.Errorf("nil neighbours: near = %+v, want nothing", got)
	}
}

// TestNeighboursScope: a rule whose scope does not apply to the correction
// is no neighbour, whether the per-row best is cached yet or not.
func TestNeighboursScope(t *testing.T) {
	ids := []string{"r.a", "r.b", "r.c"}
	scopes := map[string]engine.Scope{"r.b": {Project: "api"}}
	affirm := NewIndex(3, ids, []Row{{"r.a", []float32{0.6, 0.8, 0}}, {"r.b", []float32{0, 1, 0}}}, scopes)
	contrary := NewIndex(3, ids, []Row{{"r.c", []float32{0, 0.6, 0.8}}}, scopes)
	q := []float32{0.6, 0.8, 0}
	for _, tt := range []struct {
		name      string
		req       engine.Scope
		other     float64
		otherRule string
	}{
		{"another project: r.b is out of scope", engine.Scope{Project: "web"}, 0.48, "r.c"},
		{"its project", engine.Scope{Project: "api"}, 0.8, "r.b"},
		{"another project again, from the cache", engine.Scope{Project: "web"}, 0.48, "r.c"},
	} {
		n := newNeighbours(affirm, contrary)
		if tt.name == "another project again, from the cache" {
			n.near(q, "r.a", engine.Scope{})
		}
		got := n.near(q, "r.a", tt.req)
		if !got.ok || got.otherRule != tt.otherRule || math.Abs(got.other-tt.other) > 1e-5 {
			t.Errorf("%s: near = %+v, want other %.2f (%s)", tt.name, got, tt.other, tt.otherRule)
		}
	}
}

// TestGuardEdge walks the neighbour check: only auto matches move, only when
// the nearest text is closer to another rule by more than the margin, and a
// zero margin or an unknown nearness disables it.
func TestGuardEdge(t *testing.T) {
	near := func(q, o float64) nearness { return nearness{query: q, other: o, otherRule: "r.b", ok: true} }
	g := DefaultGuard()
	for _, tt := range []struct {
		name     string
		g        Guard
		decision string
		n        nearness
		want     string
		reason   string
	}{
		{"closer to the correction", g, DecisionAutoMatch, near(0.7, 0.6), DecisionAutoMatch, ""},
		{"closer to another rule, within the margin", g, DecisionAutoMatch, near(0.5, 0.6), DecisionAutoMatch, ""},
		{"closer to another rule by more than the margin", g, DecisionAutoMatch, near(0.5, 0.65), DecisionConfirm,
			"ambiguous: the text of r.a nearest to the correction is closer to r.b (0.650) than to the correction (0.500)"},
		{"confirm stays confirm", g, DecisionConfirm, near(0.3, 0.9), DecisionConfirm, ""},
		{"unknown nearness", g, DecisionAutoMatch, nearness{}, DecisionAutoMatch, ""},
		{"check disabled", Guard{MinContentWords: 1, AutoMargin: 0.02}, DecisionAutoMatch, near(0.3, 0.9), DecisionAutoMatch, ""},
	} {
		got, reason := tt.g.edge(tt.decision, "r.a", tt.n)
		if got != tt.want || !strings.HasPrefix(reason, tt.reason) || (tt.reason == "") != (reason == "") {
			t.Errorf("%s: edge = %s, %q; want %s, %q", tt.name, got, reason, tt.want, tt.reason)
		}
	}
}
