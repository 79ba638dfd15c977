package classifier

import (
	"slices"

	"github.com/lexsona/lexsona/engine"
)

// topK keeps the k best candidates seen so far in a fixed-size min-heap whose
// root is the worst kept one, so each push costs O(1) when it loses to the
// root and O(log k) otherwise, and memory is k entries whatever the index size.
type topK struct {
	k int
	h []engine.Candidate
}

func newTopK(k int) *topK { return &topK{k: max(k, 0), h: make([]engine.Candidate, 0, max(k, 0))} }

// worse orders candidates: a lower score is worse; at equal scores the larger
// rule id is worse, so results are deterministic.
func worse(a, b engine.Candidate) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.RuleID > b.RuleID
}

func (t *topK) push(id string, score float64) {
	c := engine.Candidate{RuleID: id, Score: score}
	if len(t.h) < t.k {
		t.h = append(t.h, c)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !worse(t.h[i], t.h[p]) {
				break
			}
			t.h[i], t.h[p] = t.h[p], t.h[i]
			i = p
		}
		return
	}
	if t.k == 0 || !worse(t.h[0], c) {
		return
	}
	t.h[0] = c
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(t.h) && worse(t.h[l], t.h[m]) {
			m = l
		}
		if r < len(t.h) && worse(t.h[r], t.h[m]) {
			m = r
		}
		if m == i {
			return
		}
		t.h[i], t.h[m] = t.h[m], t.h[i]
		i = m
	}
}

// sorted returns the kept candidates best first, scores rounded (RoundScore);
// never nil, so it encodes as [] in JSON. It sorts the heap in place, so it
// is the last call on t.
func (t *topK) sorted() []engine.Candidate {
	out := t.h // the heap is done with: sort it in place
	if out == nil {
		out = []engine.Candidate{}
	}
	slices.SortFunc(out, func(a, b engine.Candidate) int {
		switch {
		case worse(b, a):
			return -1
		case worse(a, b):
			return 1
		}
		return 0
	})
	for i := range out {
		out[i].Score = RoundScore(out[i].Score)
	}
	return out
}

// TopK returns the k best of scores (indexed like ids) strictly above floor,
// best first, skipping i when allow is set and allow(i) is false.
func TopK(ids []string, scores []float64, k int, floor float64, allow func(i int) bool) []engine.Candidate {
	h := newTopK(k)
	for i, s := range scores {
		if RoundScore(s) > floor && (allow == nil || allow(i)) {
			h.push(ids[i], s)
		}
	}
	return h.sorted()
}

// ScopeApplies reports whether a rule with scope rule can be what a
// correction made in context req is about: scope before score, so a rule
// whose scope shuts the session out is neither matched nor offered there.
// A rule is ruled out when it sets environment, project or agent_family and
// the request sets the same field to another value, or when the request
// names its context tags (a hook's session does: the project's languages)
// and lacks one the rule requires. A field the request leaves empty rules
// nothing out (a correction given without context may be about any rule),
// and exclude tags are not compared (a counterexample given in an excluded
// context is exactly what exception proposals need). Both scopes must be
// normalised.
func ScopeApplies(rule, req engine.Scope) bool {
	differs := func(r, q string) bool { return r != "" && q != "" && r != q }
	if differs(rule.Environment, req.Environment) || differs(rule.Project, req.Project) || differs(rule.AgentFamily, req.AgentFamily) {
		return false
	}
	if len(req.ContextTags) == 0 {
		return true
	}
	for _, t := range rule.ContextTags {
		if !slices.Contains(req.ContextTags, t) {
			return false
		}
	}
	return true
}
