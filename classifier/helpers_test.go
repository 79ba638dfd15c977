package classifier

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lexsona/lexsona/classifier/classifiertest"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
)

// Helpers shared with the use-case layer's and the evaluation's tests.
var (
	MustLexical = classifiertest.MustLexical
	MustCode    = classifiertest.MustCode
	basis       = classifiertest.Basis
	unitAt      = classifiertest.UnitAt
)

type fakeEmbedder = classifiertest.FakeEmbedder

// memCorpus is a Corpus held in memory: the texts of a registry's rules
// with their vectors under the embedders given, rules added by the test and
// learned exemplars. It is the classifier's input without a store; the
// store-backed Corpus is the use-case layer's (memory.Corpus), tested there.
// Every change moves its version. It is safe for concurrent use.
type memCorpus struct {
	mu      sync.Mutex
	version int64
	scopes  map[string]engine.Scope
	texts   []memText
	vectors map[string][]Vector // by model identity ID
	learned []Learned
}

type memText struct {
	rule, text string
	affirms    bool
}

// newMemCorpus holds reg's rules (the default pack when nil; none for an
// empty registry) — each rule's template and examples affirming it, its
// contrary phrasings not — embedded with each of embs.
func newMemCorpus(tb testing.TB, reg *registry.Registry, embs ...models.Embedder) *memCorpus {
	tb.Helper()
	if reg == nil {
		reg = registry.Default()
	}
	c := &memCorpus{version: 1, scopes: map[string]engine.Scope{}, vectors: map[string][]Vector{}}
	for _, d := range reg.Definitions() {
		s, err := engine.ParseScope(d.Rule.Scope)
		if err != nil {
			tb.Fatal(err)
		}
		c.scopes[d.Rule.RuleID] = s
		for _, t := range append([]string{d.Rule.Text}, d.Examples...) {
			c.texts = append(c.texts, memText{d.Rule.RuleID, t, true})
		}
		for _, t := range reg.Contrary(d.Rule.RuleID) {
			c.texts = append(c.texts, memText{d.Rule.RuleID, t, false})
		}
	}
	for _, emb := range embs {
		if err := c.embed(context.Background(), emb, c.texts); err != nil {
			tb.Fatal(err)
		}
	}
	return c
}

// embed adds the vectors of texts under emb's model.
func (c *memCorpus) embed(ctx context.Context, emb models.Embedder, texts []memText) error {
	if len(texts) == 0 {
		return nil
	}
	strs := make([]string, len(texts))
	for i, t := range texts {
		strs[i] = t.text
	}
	vs, err := emb.Embed(ctx, strs)
	if err != nil {
		return err
	}
	id := emb.Identity().ID()
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, t := range texts {
		c.vectors[id] = append(c.vectors[id], Vector{RuleID: t.rule, Affirms: t.affirms, Vector: vs[i]})
	}
	c.version++
	return nil
}

// addRule adds a rule without scope whose template is text, embedded with emb.
func (c *memCorpus) addRule(ctx context.Context, emb models.Embedder, id, text string) error {
	t := memText{id, text, true}
	c.mu.Lock()
	c.scopes[id] = engine.Scope{}
	c.texts = append(c.texts, t)
	c.mu.Unlock()
	return c.embed(ctx, emb, []memText{t})
}

// archive takes rule id out of the rules the corpus lists (its texts stay).
func (c *memCorpus) archive(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.scopes, id)
	c.version++
}

// learn adds learned exemplars.
func (c *memCorpus) learn(ls ...Learned) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.learned = append(c.learned, ls...)
	c.version++
}

func (c *memCorpus) Version(context.Context, time.Duration) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version, nil
}

func (c *memCorpus) Vectors(_ context.Context, model string) ([]Vector, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.vectors[model]), nil
}

func (c *memCorpus) Rules(context.Context) (map[string]engine.Scope, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]engine.Scope, len(c.scopes))
	for id, s := range c.scopes {
		out[id] = s
	}
	return out, nil
}

func (c *memCorpus) Texts(context.Context) ([]Text, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Text
	for _, t := range c.texts {
		if _, live := c.scopes[t.rule]; live {
			out = append(out, Text{RuleID: t.rule, Text: t.text, Contrary: !t.affirms})
		}
	}
	return out, nil
}

func (c *memCorpus) RuleID(_ context.Context, id string) (string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.scopes[id]
	return id, ok, nil
}

func (c *memCorpus) Learned(context.Context) ([]Learned, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.learned), nil
}

// MustDefaultClassifier returns a classifier over the default pack embedded
// with the lexical embedder, and its corpus.
func MustDefaultClassifier(tb testing.TB, opts Options) (*Classifier, *memCorpus) {
	tb.Helper()
	emb := MustLexical(tb, nil)
	corpus := newMemCorpus(tb, nil, emb)
	return New(corpus, emb, opts), corpus
}
