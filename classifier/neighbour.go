package classifier

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/viterin/vek/vek32"
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

// near returns the nearness of the query vector q to rule id.
func (n *neighbours) near(q []float32, id string) nearness {
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
	other, rule := n.other(bestK, bestR, id)
	if rule == "" {
		return nearness{}
	}
	return nearness{query: float64(bestS), other: other, otherRule: rule, ok: true}
}

// other returns row r of index k's best cosine to a row of another rule than
// id, and that rule ("" when there is none).
func (n *neighbours) other(k, r int, id string) (float64, string) {
	if b := n.best[k][r].Load(); b != 0 {
		at := b >> 32
		return float64(math.Float32frombits(uint32(b))), n.ix[at&1].ids[at>>1-1]
	}
	v := n.ix[k].mat[r*n.ix[k].dims : (r+1)*n.ix[k].dims]
	best, rule, in := float32(math.Inf(-1)), -1, 0
	for kk, ix := range n.ix {
		p := ix.rowScores(v)
		for i, rid := range ix.ids {
			if rid == id {
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
	if rule < 0 {
		return 0, ""
	}
	n.best[k][r].Store(uint64(2*(rule+1)+in)<<32 | uint64(math.Float32bits(best)))
	return float64(best), n.ix[in].ids[rule]
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
