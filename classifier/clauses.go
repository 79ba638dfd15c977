package classifier

import (
	"context"
	"math"
	"regexp"
	"strings"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// MaxClauses is how many clauses of a text are scored on their own (the
// last ones: a correction most often ends a task request); the whole text
// is scored too.
const MaxClauses = 4

var (
	// clauseBreak splits after . ! ? or ; followed by white space.
	clauseBreak = regexp.MustCompile(`([.!?;])\s+`)
	// aside starts a clause inside a sentence: "also", "btw", "and also",
	// "PS", "oh and".
	aside = regexp.MustCompile(`(?i)\s*(?:,|\band)?\s+\b(also|btw|by the way|oh and|ps)\b[,:]?\s+`)
)

// Clauses splits text into the clauses scored on their own: its lines,
// their sentences, and the asides ("also …", "btw …") within them, each of
// at least three words; the last MaxClauses of them. A text of one clause
// gives none (the whole text is that clause).
func Clauses(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for _, sent := range strings.Split(clauseBreak.ReplaceAllString(line, "$1\n"), "\n") {
			for _, part := range strings.Split(aside.ReplaceAllString(sent, "\n$1 "), "\n") {
				if words := strings.Fields(part); len(words) >= 3 {
					out = append(out, strings.Join(words, " "))
				}
			}
		}
	}
	if len(out) <= 1 {
		return nil
	}
	if len(out) > MaxClauses {
		out = out[len(out)-MaxClauses:]
	}
	return out
}

// clauseScores raises each rule's score in scores to its best over the
// clauses of reading r (scored as the whole text is: dense similarity to
// its affirming and contrary texts, mixed with the term score), and
// returns, by rule position, the clause that beat the whole text for it.
func (c *Classifier) clauseScores(s *snapshot, r *Reading, scores []float64) map[int]int {
	if len(r.Clauses) == 0 {
		return nil
	}
	won := map[int]int{}
	term := make([]float64, len(scores))
	for k := range r.Clauses {
		seg := &r.Clauses[k]
		q := seg.query()
		affirm := s.dense.ruleScoresQuery(q, nil)
		contrary := s.contra.ruleScoresQuery(q, nil)
		if s.terms != nil {
			seg.terms(s, term)
		}
		boost := 0.0
		if seg.Addressed {
			boost = AddressedBoost
		}
		for i := range scores {
			sc := affirm[i]
			if s.contra.hasRows(i) && !math.IsNaN(contrary[i]) {
				sc = max(sc, contrary[i])
			}
			if s.terms != nil {
				sc = min(1, (1-c.termW)*sc+c.termW*term[i]+boost)
			}
			if sc > scores[i] {
				scores[i] = sc
				won[i] = k
			}
		}
	}
	return won
}

// embedClauses embeds the clauses as queries: in one call for a dense
// embedder, one by one for a sparse one.
func (c *Classifier) embedClauses(ctx context.Context, clauses []string) ([]query, error) {
	if len(clauses) == 0 {
		return nil, nil
	}
	qs := make([]query, len(clauses))
	if _, sparse := models.SparseOf(c.emb); sparse {
		for k, text := range clauses {
			q, err := embedQuery(ctx, c.emb, text)
			if err != nil {
				return nil, err
			}
			qs[k] = q
		}
		return qs, nil
	}
	vecs, err := c.emb.Embed(ctx, clauses)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(clauses) {
		return nil, engine.Errorf(engine.EINTERNAL, "embedder returned %d vectors for %d clauses", len(vecs), len(clauses))
	}
	for k, v := range vecs {
		qs[k] = query{dense: v}
	}
	return qs, nil
}
