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
				if part = strings.TrimSpace(part); len(strings.Fields(part)) >= 3 {
					out = append(out, part)
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
// clauses of cl.input (scored as the whole text is: dense similarity to
// its affirming and contrary texts, mixed with the term score), and
// returns, by rule position, the clause that beat the whole text for it.
// A dense embedder embeds the clauses in one call. Hybrid scoring scores
// the whole text only.
func (c *Classifier) clauseScores(ctx context.Context, s *snapshot, cl *classified, scores []float64) (map[int]string, error) {
	clauses := Clauses(cl.input)
	if len(clauses) == 0 || c.opts.Lexical != nil {
		return nil, nil
	}
	qs, err := c.embedClauses(ctx, clauses)
	if err != nil {
		return nil, err
	}
	won := map[int]string{}
	term := make([]float64, len(scores))
	for k, q := range qs {
		affirm := s.dense.ruleScoresQuery(q, nil)
		contrary := s.contra.ruleScoresQuery(q, nil)
		if s.terms != nil {
			s.terms.scores(clauses[k], term)
		}
		boost := 0.0
		if Addressed(clauses[k]) {
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
				won[i] = clauses[k]
			}
		}
	}
	return won, nil
}

// embedClauses embeds the clauses as queries: in one call for a dense
// embedder, one by one for a sparse one.
func (c *Classifier) embedClauses(ctx context.Context, clauses []string) ([]query, error) {
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
