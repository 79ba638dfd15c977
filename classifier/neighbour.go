package classifier

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/viterin/vek/vek32"

	"github.com/lexsona/lexsona/engine"
)

// neighbours answers, for the rule a correction scores best against, the
// question a similarity threshold cannot: is the correction in that rule's
// own territory? The rule's text closest to the correction (its nearest
// text) is compared with every text of the other rules: when the nearest
// text lies closer to another rule's text than to the correction, by more
// than Guard.NeighbourMargin, the correction is only on the edge of the
// rule — typically a text that borrows a rule's words for something else
// (one about placeholder images can be nearest to "use placeholders" of the
// SQL rule, a text closer to "no placeholder code" of another rule than to
// it) — and is not auto-matched.
//
// It covers the dense rows of both indexes of a snapshot (affirming and
// contrary texts, learned exemplars included). Each row's best cosine to
// the other rules' rows is computed the first time the row is some
// correction's nearest text, with one pass over the indexes, and kept for
// the snapshot's life. Sparse indexes (the lexical embedder) have no check.
// It is safe for concurrent use.
type neighbours struct {
	ix [2]*Index
	// best holds, per row, its best cosine to another rule's row (the low
	// 32 bits, a float32) and where that rule is (the high 32 bits:
	// 2·(position+1) + i for the rule at position in n.ix[i]); 0 until
	// computed.
	best [2][]atomic.Uint64
}

// nearness is what the check found for one correction and its top rule:
// its cosine to the rule's nearest text and that text's best cosine to a
// text of another rule (other). ok is false when nothing could be compared.
type nearness struct {
	query, other float64
	otherRule    string
	ok           bool
}

// newNeighbours returns the check over the dense indexes affirm and
// contrary (nil when either is sparse or has no rows).
func newNeighbours(affirm, contrary *Index) *neighbours {
	if affirm == nil || contrary == nil || affirm.sp != nil || contrary.sp != nil || affirm.rows == 0 {
		return nil
	}
	n := &neighbours{ix: [2]*Index{affirm, contrary}}
	for k, ix := range n.ix {
		n.best[k] = make([]atomic.Uint64, ix.rows)
	}
	return n
}

// near returns the nearness of the query vector q to rule id, among the
// rules whose scope applies to the correction's (req): a rule the
// correction cannot match is no neighbour either, as it is no runner-up
// for the guard's margin.
func (n *neighbours) near(q []float32, id string, req engine.Scope) nearness {
	if n == nil || len(q) != n.ix[0].dims {
		return nearness{}
	}
	bestK, bestR, bestS := -1, -1, float32(math.Inf(-1))
	for k, ix := range n.ix {
		i, ok := ix.pos[id]
		if !ok {
			continue
		}
		d := ix.dims
		for r := int(ix.starts[i]); r < int(ix.starts[i+1]); r++ {
			if s := vek32.Dot(ix.mat[r*d:(r+1)*d], q); s > bestS {
				bestK, bestR, bestS = k, r, s
			}
		}
	}
	if bestK < 0 {
		return nearness{}
	}
	other, rule := n.other(bestK, bestR, id, req)
	if rule == "" {
		return nearness{}
	}
	return nearness{query: float64(bestS), other: other, otherRule: rule, ok: true}
}

// other returns row r of index k's best cosine to a row of another rule than
// id whose scope applies to req, and that rule ("" when there is none). The
// best over every rule is computed once per row and kept; when its rule is
// out of req's scope, the best among the rules in scope is computed anew.
func (n *neighbours) other(k, r int, id string, req engine.Scope) (float64, string) {
	b := n.best[k][r].Load()
	if b == 0 {
		best, in, rule := n.bestOther(k, r, id, nil)
		if rule < 0 {
			return 0, ""
		}
		b = uint64(2*(rule+1)+in)<<32 | uint64(math.Float32bits(best))
		n.best[k][r].Store(b)
	}
	at := b >> 32
	in, rule := int(at&1), int(at>>1)-1
	if ScopeApplies(n.ix[in].scopes[rule], req) {
		return float64(math.Float32frombits(uint32(b))), n.ix[in].ids[rule]
	}
	best, in, rule := n.bestOther(k, r, id, func(ix *Index, i int) bool { return ScopeApplies(ix.scopes[i], req) })
	if rule < 0 {
		return 0, ""
	}
	return float64(best), n.ix[in].ids[rule]
}

// bestOther returns row r of index k's best cosine to a row of a rule other
// than id (that keep accepts, when not nil): the cosine, the index the rule
// is in and its position there (-1 when there is none).
func (n *neighbours) bestOther(k, r int, id string, keep func(ix *Index, i int) bool) (best float32, in, rule int) {
	v := n.ix[k].mat[r*n.ix[k].dims : (r+1)*n.ix[k].dims]
	best, rule = float32(math.Inf(-1)), -1
	for kk, ix := range n.ix {
		p := ix.rowScores(v)
		for i, rid := range ix.ids {
			if rid == id || (keep != nil && !keep(ix, i)) {
				continue
			}
			for _, s := range (*p)[ix.starts[i]:ix.starts[i+1]] {
				if s > best {
					best, rule, in = s, i, kk
				}
			}
		}
		ix.pool.Put(p)
	}
	return best, in, rule
}

// edge returns the decision after the neighbour check and its reason (""
// when the check has nothing to say): an auto match whose correction n found
// on the edge of rule id becomes confirm.
func (g Guard) edge(decision, id string, n nearness) (string, string) {
	if decision != DecisionAutoMatch || g.NeighbourMargin <= 0 || !n.ok {
		return decision, ""
	}
	if RoundScore(n.other-n.query) <= g.NeighbourMargin {
		return decision, ""
	}
	return DecisionConfirm, fmt.Sprintf("%s: the text of %s nearest to the correction is closer to %s (%.3f) than to the correction (%.3f) by more than the %.3f margin needed to auto-match",
		ReasonAmbiguous, id, n.otherRule, n.other, n.query, g.NeighbourMargin)
}
