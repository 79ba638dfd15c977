package classifier

import (
	"context"
	"crypto/sha256"
	"slices"
	"sync"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// Learned is a correction a user confirmed as being about a rule: Affirms
// when it insists on the rule (accepted as a reinforcement), false when it
// takes the rule back (accepted as a counterexample). The classifier embeds
// it and compares corrections with it as with the rule's own texts — an
// affirming one beside the template and examples, a contrary one beside the
// contrary phrasings (see Classifier.addLearned) — so that a user's way of
// putting a rule is recognised the next time, without anyone editing the
// registry.
type Learned struct {
	RuleID  string
	Text    string
	Affirms bool
}

// MaxLearnedPerRule bounds the learned exemplars of one rule the index
// keeps, per polarity: the most recent ones (Corpus.Learned lists them
// oldest first). It keeps the index, and the embedding work of a rebuild,
// proportional to the number of rules.
const MaxLearnedPerRule = 32

// learnedCache keeps the vectors of learned texts across index rebuilds, by
// model identity and digest of the text (so that it holds no text, nor the
// larger string a text was cut from), so that a rebuild embeds only the
// texts learned since the last one. For each model, only the vectors of the
// latest rebuild's texts are kept.
type learnedCache struct {
	mu   sync.Mutex
	vecs map[learnedKey][]float32
}

type learnedKey struct {
	model string
	text  [sha256.Size]byte
}

func learnedKeyOf(model, text string) learnedKey {
	return learnedKey{model, sha256.Sum256([]byte(text))}
}

// vectors returns the rows of the learned exemplars of the live rules
// (those in live), at most MaxLearnedPerRule of each rule and polarity,
// the latest ones, embedded with emb; affirming and contrary rows apart.
// Texts embedded by an earlier call for the same model are not embedded
// again. Errors: the embedder's.
func (lc *learnedCache) vectors(ctx context.Context, emb models.Embedder, learned []Learned, live func(string) bool) (affirm, contrary []Vector, err error) {
	kept := latestLearned(learned, live)
	if len(kept) == 0 {
		return nil, nil, nil
	}
	model := emb.Identity().ID()
	lc.mu.Lock()
	defer lc.mu.Unlock()
	next := make(map[learnedKey][]float32, len(kept))
	for k, v := range lc.vecs {
		if k.model != model { // another embedder's (hybrid scoring): kept as it is
			next[k] = v
		}
	}
	var todo []string
	for _, l := range kept {
		k := learnedKeyOf(model, l.Text)
		if v, ok := lc.vecs[k]; ok {
			next[k] = v
		} else if _, queued := next[k]; !queued {
			next[k] = nil
			todo = append(todo, l.Text)
		}
	}
	for start := 0; start < len(todo); start += learnedBatch {
		batch := todo[start:min(start+learnedBatch, len(todo))]
		vs, err := emb.Embed(ctx, batch)
		if err != nil {
			return nil, nil, err
		}
		for i, v := range vs {
			if i < len(batch) {
				next[learnedKeyOf(model, batch[i])] = v
			}
		}
	}
	lc.vecs = next
	for _, l := range kept {
		v := next[learnedKeyOf(model, l.Text)]
		if len(v) == 0 {
			continue
		}
		row := Vector{RuleID: l.RuleID, Affirms: l.Affirms, Vector: v}
		if l.Affirms {
			affirm = append(affirm, row)
		} else {
			contrary = append(contrary, row)
		}
	}
	return affirm, contrary, nil
}

// addLearned appends to dense (and lex, for hybrid scoring) the vectors of
// the corpus's learned exemplars of live rules, each text embedded as a
// query would be (see learnedCache.vectors). A model without stored vectors
// gets none. The exemplars do not join their rule's vocabulary for the term
// score: a larger vocabulary lowers the term score of every text that shares
// only the registry's words with the rule, so the scores the thresholds were
// calibrated on would drift down as a user's exemplars accumulate; in the
// dense index an exemplar can only raise the score of texts close to it.
func (c *Classifier) addLearned(ctx context.Context, dense, lex *[]Vector, live func(string) bool) error {
	learned, err := c.corpus.Learned(ctx)
	if err != nil {
		return err
	}
	learned = slices.Clone(learned) // the corpus's own list: not ours to change
	for i := range learned {
		learned[i].Text = embedInput(learned[i].Text, c.opts.MaxEmbedBytes)
	}
	if len(*dense) > 0 {
		if *dense, err = c.withLearned(ctx, c.emb, *dense, learned, live); err != nil {
			return err
		}
	}
	if len(*lex) > 0 {
		lexLearned := slices.Clone(learned)
		for i := range lexLearned {
			lexLearned[i].Text = engine.CutAtRune(lexLearned[i].Text, DefaultLexicalMaxEmbedBytes)
		}
		if *lex, err = c.withLearned(ctx, c.opts.Lexical, *lex, lexLearned, live); err != nil {
			return err
		}
	}
	return nil
}

// withLearned returns stored with the vectors of the learned exemplars of
// live rules under emb appended (see learnedCache.vectors).
func (c *Classifier) withLearned(ctx context.Context, emb models.Embedder, stored []Vector, learned []Learned, live func(string) bool) ([]Vector, error) {
	affirm, contrary, err := c.learned.vectors(ctx, emb, learned, live)
	if err != nil {
		return nil, err
	}
	out := make([]Vector, 0, len(stored)+len(affirm)+len(contrary))
	return append(append(append(out, stored...), affirm...), contrary...), nil
}

// learnedBatch is how many learned texts one Embed call gets.
const learnedBatch = 32

// latestLearned keeps the learned exemplars of live rules, at most
// MaxLearnedPerRule per rule and polarity — the last ones listed — and
// drops repeats of a text for the same rule and polarity.
func latestLearned(learned []Learned, live func(string) bool) []Learned {
	type slot struct {
		rule    string
		affirms bool
	}
	n := map[slot]int{}
	seen := map[Learned]bool{}
	var out []Learned
	for i := len(learned) - 1; i >= 0; i-- {
		l := learned[i]
		s := slot{l.RuleID, l.Affirms}
		if l.Text == "" || seen[l] || n[s] >= MaxLearnedPerRule || !live(l.RuleID) {
			continue
		}
		seen[l] = true
		n[s]++
		out = append(out, l)
	}
	return out
}
