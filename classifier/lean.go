package classifier

import (
	"math"

	"github.com/lexsona/lexsona/engine"
	"github.com/viterin/vek/vek32"
)

// leanModel measures how far a text leans towards taking a rule back, from
// the embeddings of every rule that has both affirming and contrary texts:
//
//   - dir is the mean, over those rules, of (mean contrary vector − mean
//     affirming vector), normalised: the direction in which "npm is fine
//     here" lies from "use pnpm", "go ahead and commit" from "don't commit",
//     shared by all rules (permission, dismissal, reversed preference);
//   - each such rule's midpoint between its two means, projected on dir, is
//     where its own texts split.
//
// A text's projection on dir minus its rule's midpoint is positive on the
// contrary side. Nearest exemplars alone (contrary − affirm) miss a
// contradiction phrased unlike every contrary text of its rule; the shared
// direction carries what the other rules' contrary texts have in common.
// It is immutable.
type leanModel struct {
	dir []float32
	mid []float64 // per rule (index order); NaN for a rule without both kinds
}

// newLeanModel builds the model from the affirming and contrary rows of
// the rules ids (nil when no rule has both, or the vectors are not dims long).
// It keeps one vector and a number per rule, whatever the number of rows.
func newLeanModel(dims int, ids []string, affirm, contrary []Row) *leanModel {
	if dims <= 0 {
		return nil
	}
	pos := make(map[string]int, len(ids))
	for i, id := range ids {
		pos[id] = i
	}
	usable := func(r Row) (int, bool) {
		i, ok := pos[r.RuleID]
		return i, ok && engine.CheckVector(r.Vector, dims) == nil
	}
	na, nc := make([]int, len(ids)), make([]int, len(ids))
	for _, kind := range []struct {
		rows []Row
		n    []int
	}{{affirm, na}, {contrary, nc}} {
		for _, r := range kind.rows {
			if i, ok := usable(r); ok {
				kind.n[i]++
			}
		}
	}
	both := 0
	for i := range ids {
		if na[i] > 0 && nc[i] > 0 {
			both++
		}
	}
	if both == 0 {
		return nil
	}
	// dir = Σ over rules with both kinds of (mean contrary − mean affirming).
	dir := make([]float64, dims)
	add := func(rows []Row, n []int, sign float64) {
		for _, r := range rows {
			i, ok := usable(r)
			if !ok || na[i] == 0 || nc[i] == 0 {
				continue
			}
			w := sign / float64(n[i])
			for j, x := range r.Vector {
				dir[j] += w * float64(x)
			}
		}
	}
	add(affirm, na, -1)
	add(contrary, nc, 1)
	var norm float64
	for _, x := range dir {
		norm += x * x
	}
	if norm == 0 {
		return nil
	}
	norm = math.Sqrt(norm)
	m := &leanModel{dir: make([]float32, dims), mid: make([]float64, len(ids))}
	for j, x := range dir {
		m.dir[j] = float32(x / norm)
	}
	// A rule's midpoint is halfway between its two means' projections, the
	// mean of its rows' projections of each kind.
	for i := range m.mid {
		m.mid[i] = math.NaN()
		if na[i] > 0 && nc[i] > 0 {
			m.mid[i] = 0
		}
	}
	for _, kind := range []struct {
		rows []Row
		n    []int
	}{{affirm, na}, {contrary, nc}} {
		for _, r := range kind.rows {
			i, ok := usable(r)
			if !ok || math.IsNaN(m.mid[i]) {
				continue
			}
			m.mid[i] += float64(vek32.Dot(r.Vector, m.dir)) / (2 * float64(kind.n[i]))
		}
	}
	return m
}

// lean returns how far q lies on the contrary side of rule i along the
// shared direction, or NaN when the model knows nothing about the rule (or
// q has another length).
func (m *leanModel) lean(q []float32, i int) float64 {
	if m == nil || i < 0 || i >= len(m.mid) || math.IsNaN(m.mid[i]) || len(q) != len(m.dir) {
		return math.NaN()
	}
	return float64(vek32.Dot(q, m.dir)) - m.mid[i]
}
