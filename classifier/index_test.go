package classifier

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
)

func TestIndexSearch(t *testing.T) {
	const d = 4
	q := []float32{1, 0, 0, 0}
	at := func(s float64) []float32 { return unitAt(d, s) }
	rows := []Row{
		{"r.best-of-texts", at(0.55)}, {"r.best-of-texts", at(0.93)}, {"r.best-of-texts", at(0.6)},
		{"r.b", at(0.8)}, {"r.a", at(0.8)}, // a tie: by id
		{"r.c", at(0.7)}, {"r.d", at(0.65)}, {"r.e", at(0.6)},
		{"r.at-cut", at(0.5)}, {"r.below", at(0.2)}, {"r.negative", at(-0.9)},
		{"r.bad-dims", []float32{1, 0}}, {"r.nan", []float32{float32(math.NaN()), 0, 0, 0}},
		{"r.zero", make([]float32, d)}, {"r.unnormalised", []float32{9, 0, 0, 0}},
	}
	ix := NewIndex(d, nil, rows, nil)
	if ix.Rows() != 12 || ix.Dims() != d {
		t.Fatalf("Rows %d Dims %d, want 12 rows (bad dims, NaN and zero skipped) of %d", ix.Rows(), ix.Dims(), d)
	}
	tests := []struct {
		k    int
		want []engine.Candidate
	}{
		{5, []engine.Candidate{cand("r.unnormalised", 1), cand("r.best-of-texts", 0.93), cand("r.a", 0.8), cand("r.b", 0.8), cand("r.c", 0.7)}},
		{2, []engine.Candidate{cand("r.unnormalised", 1), cand("r.best-of-texts", 0.93)}},
		{20, []engine.Candidate{cand("r.unnormalised", 1), cand("r.best-of-texts", 0.93), cand("r.a", 0.8), cand("r.b", 0.8), cand("r.c", 0.7), cand("r.d", 0.65), cand("r.e", 0.6)}},
		{0, []engine.Candidate{}},
	}
	for _, tt := range tests {
		got := ix.Search(q, tt.k, 0.5, engine.Scope{})
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Search k=%d (-want +got):\n%s", tt.k, diff)
		}
	}
	if got := ix.Search([]float32{1, 0}, 5, 0.5, engine.Scope{}); len(got) != 0 {
		t.Errorf("query of the wrong length found %v", got)
	}
	scores := ix.RuleScores(q, nil)
	ids := ix.RuleIDs()
	if i := slices.Index(ids, "r.best-of-texts"); RoundScore(scores[i]) != 0.93 {
		t.Errorf("RuleScores best-of-texts = %v", scores[i])
	}
	if i := slices.Index(ids, "r.zero"); i < 0 || scores[i] != 0 {
		t.Errorf("a rule without usable rows should score 0, got index %d", i)
	}
}

func TestScopeApplies(t *testing.T) {
	rule := engine.Scope{Environment: "work", Project: "api", ContextTags: []string{"cli"}, ExcludeTags: []string{"tests"}}
	tests := []struct {
		req  engine.Scope
		want bool
	}{
		{engine.Scope{}, true},
		{engine.Scope{Environment: "work"}, true},
		{engine.Scope{Environment: "work", Project: "api", AgentFamily: "claude"}, true},
		{engine.Scope{Environment: "home"}, false},
		{engine.Scope{Project: "web"}, false},
		{engine.Scope{ContextTags: []string{"cli", "tests"}}, true},                 // exclude tags are not compared
		{engine.Scope{ContextTags: []string{"python"}}, false},                      // a session without the rule's tag
		{engine.Scope{Environment: "work", Project: "api", ContextTags: nil}, true}, // no tags named: not compared
	}
	for _, tt := range tests {
		if got := ScopeApplies(rule, tt.req); got != tt.want {
			t.Errorf("ScopeApplies(%v, %v) = %v, want %v", rule, tt.req, got, tt.want)
		}
	}
	if !ScopeApplies(engine.Scope{}, engine.Scope{Project: "x"}) {
		t.Error("a global rule must apply everywhere")
	}
}

func TestIndexScopeFilter(t *testing.T) {
	rows := []Row{{"r.api", unitAt(4, 0.9)}, {"r.web", unitAt(4, 0.8)}, {"r.global", unitAt(4, 0.7)}}
	scopes := map[string]engine.Scope{"r.api": {Project: "api"}, "r.web": {Project: "web"}}
	ix := NewIndex(4, nil, rows, scopes)
	got := ix.Search(basis(4, 0), 5, 0.5, engine.Scope{Project: "web"})
	want := []engine.Candidate{cand("r.web", 0.8), cand("r.global", 0.7)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestTopKMatchesSort checks the heap against a full sort on random scores.
func TestTopKMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n, k := rng.IntN(300), rng.IntN(8)
		ids := make([]string, n)
		scores := make([]float64, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("r.%03d", i)
			scores[i] = math.Round(rng.Float64()*20) / 20 // many ties
		}
		got := TopK(ids, scores, k, 0.5, nil)
		var all []engine.Candidate
		for i, s := range scores {
			if s > 0.5 {
				all = append(all, engine.Candidate{RuleID: ids[i], Score: s})
			}
		}
		slices.SortFunc(all, func(a, b engine.Candidate) int {
			if a.Score != b.Score {
				if a.Score > b.Score {
					return -1
				}
				return 1
			}
			if a.RuleID < b.RuleID {
				return -1
			}
			return 1
		})
		want := all[:min(k, len(all))]
		if want == nil {
			want = []engine.Candidate{}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("trial %d n=%d k=%d (-want +got):\n%s", trial, n, k, diff)
		}
	}
}

func cand(id string, score float64) engine.Candidate {
	return engine.Candidate{RuleID: id, Score: score}
}

// TestSparseIndex: sparse rows are stored as columns and score exactly as
// dense dot products would.
func TestSparseIndex(t *testing.T) {
	rows := sparseRows(200, 512, 12, 11)
	for i := range rows {
		rows[i].RuleID = fmt.Sprintf("r.%03d", i/3) // three texts per rule
	}
	ix := NewIndex(512, nil, rows, nil)
	if !ix.Sparse() || ix.Rows() != 200 || ix.Rules() != 67 {
		t.Fatalf("sparse %v rows %d rules %d", ix.Sparse(), ix.Rows(), ix.Rules())
	}
	for trial := range 20 {
		q := rows[trial*7].Vector
		if trial%2 == 1 {
			q = sparseRows(1, 512, 40, uint64(trial))[0].Vector
		}
		best := map[string]float64{}
		for _, r := range rows {
			var s float64
			for j := range q {
				s += float64(q[j]) * float64(r.Vector[j])
			}
			best[r.RuleID] = max(best[r.RuleID], s)
		}
		ids := make([]string, 0, len(best))
		scores := make([]float64, 0, len(best))
		for id, s := range best {
			ids, scores = append(ids, id), append(scores, s)
		}
		want := TopK(ids, scores, 5, 0.1, nil)
		got := ix.Search(q, 5, 0.1, engine.Scope{})
		if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 2e-6 })); diff != "" {
			t.Fatalf("trial %d (-brute force +index):\n%s", trial, diff)
		}
	}
	if dense := NewIndex(4, nil, []Row{{"r.a", unitAt(4, 0.6)}}, nil); dense.Sparse() {
		t.Error("a dense index was stored sparse")
	}
}
