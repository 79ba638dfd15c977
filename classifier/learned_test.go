package classifier

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"
	"weak"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/registry"
)

// countingFake counts the texts it embeds.
type countingFake struct {
	models.Embedder
	texts atomic.Int32
}

func (e *countingFake) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.texts.Add(int32(len(texts)))
	return e.Embedder.Embed(ctx, texts)
}

// mustLearnedSetup is a classifier over rules r.a (template on e0) and r.b
// (template on e2) with hand-set vectors, bands auto 0.7 / confirm 0.5,
// plain cosine scores, and texts the registry does not know: "own words"
// on e1 (orthogonal to both rules), "own words, again" close to it, and
// "taking it back" on e3.
func mustLearnedSetup(t *testing.T) (*Classifier, *memCorpus, *countingFake) {
	t.Helper()
	const dims = 4
	reg, err := registry.Parse([]byte(`version: 1
rules:
  - {rule_id: r.a, category: code_style, severity: should, template: "template a"}
  - {rule_id: r.b, category: code_style, severity: should, template: "template b"}
`), "learned.yaml")
	if err != nil {
		t.Fatal(err)
	}
	emb := &countingFake{Embedder: &fakeEmbedder{Dims: dims, Vectors: map[string][]float32{
		"template a": basis(dims, 0), "template b": basis(dims, 2),
		"own words": basis(dims, 1), "own words, again": {0, 0.98, 0.199, 0}, "taking it back": basis(dims, 3),
	}}}
	corpus := newMemCorpus(t, reg, emb)
	c := New(corpus, emb, Options{Thresholds: &Thresholds{Auto: 0.7, Confirm: 0.5}, TermWeight: new(float64)})
	return c, corpus, emb
}

// TestLearnedExemplars: a confirmed correction becomes an exemplar of its
// rule — the same words, or close ones, then match that rule — and a
// confirmed contradiction a contrary exemplar, so the same words are then a
// counterexample; exemplars of rules the corpus no longer lists are ignored.
func TestLearnedExemplars(t *testing.T) {
	c, corpus, _ := mustLearnedSetup(t)
	classify := func(text string) Result {
		t.Helper()
		r, err := c.Classify(t.Context(), text, engine.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := classify("own words"); r.Decision != DecisionNewRule {
		t.Fatalf("before learning: %+v, want new_rule", r)
	}

	corpus.learn(Learned{RuleID: "r.a", Text: "own words", Affirms: true})
	for _, text := range []string{"own words", "own words, again"} {
		if r := classify(text); r.Decision != DecisionAutoMatch || r.RuleID != "r.a" || r.Polarity != engine.Reinforce {
			t.Errorf("%q after learning: %+v, want auto_match r.a as a reinforcement", text, r)
		}
	}

	corpus.learn(Learned{RuleID: "r.b", Text: "taking it back"})
	if r := classify("taking it back"); r.RuleID != "r.b" || r.Polarity != engine.Counter {
		t.Errorf("a learned contradiction: %+v, want a counterexample of r.b", r)
	}

	corpus.archive("r.a")
	if r := classify("own words"); r.Decision != DecisionNewRule {
		t.Errorf("the exemplar of an archived rule still matched: %+v", r)
	}
}

// TestLearnedVectorsCached: a rebuild embeds only the learned texts it has
// not embedded before.
func TestLearnedVectorsCached(t *testing.T) {
	c, corpus, emb := mustLearnedSetup(t)
	classify := func() {
		t.Helper()
		if _, err := c.Classify(t.Context(), "own words", engine.Scope{}); err != nil {
			t.Fatal(err)
		}
	}
	classify()
	corpus.learn(Learned{RuleID: "r.a", Text: "own words, again", Affirms: true})
	before := emb.texts.Load()
	classify() // embeds the query and the new exemplar
	if got := emb.texts.Load() - before; got != 2 {
		t.Errorf("the first rebuild with an exemplar embedded %d texts, want 2", got)
	}
	corpus.learn(Learned{RuleID: "r.b", Text: "taking it back", Affirms: true})
	before = emb.texts.Load()
	classify()
	if got := emb.texts.Load() - before; got != 2 {
		t.Errorf("a rebuild with one more exemplar embedded %d texts, want 2 (the query and the new one)", got)
	}
}

// TestLatestLearned: per rule and polarity the latest MaxLearnedPerRule
// exemplars are kept, repeats and exemplars of rules not live are dropped.
func TestLatestLearned(t *testing.T) {
	var in []Learned
	for i := range MaxLearnedPerRule + 3 {
		in = append(in, Learned{RuleID: "r.a", Text: fmt.Sprint("a", i), Affirms: true})
	}
	in = append(in,
		Learned{RuleID: "r.a", Text: "a0", Affirms: false},                                // the other polarity: its own slot
		Learned{RuleID: "r.a", Text: fmt.Sprint("a", MaxLearnedPerRule+2), Affirms: true}, // a repeat
		Learned{RuleID: "r.gone", Text: "g", Affirms: true},
		Learned{RuleID: "r.b", Text: "", Affirms: true},
	)
	got := latestLearned(in, func(id string) bool { return id != "r.gone" })
	var want []Learned
	want = append(want, Learned{RuleID: "r.a", Text: fmt.Sprint("a", MaxLearnedPerRule+2), Affirms: true}, Learned{RuleID: "r.a", Text: "a0", Affirms: false})
	for i := MaxLearnedPerRule + 1; i >= 3; i-- {
		want = append(want, Learned{RuleID: "r.a", Text: fmt.Sprint("a", i), Affirms: true})
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if slices.ContainsFunc(got, func(l Learned) bool { return l.Text == "a2" }) {
		t.Error("an exemplar beyond the cap was kept")
	}
}

// TestLearnedCacheKeepsNoText: the vectors kept across rebuilds hold no
// learned text: 1 MB exemplars, and the strings shorter ones were cut from,
// are unreachable through the cache once the caller drops them, and the
// same texts made anew are not embedded again.
func TestLearnedCacheKeepsNoText(t *testing.T) {
	emb := &countingFake{Embedder: lexical.New(64)}
	var lc learnedCache
	learned := func() []Learned {
		var out []Learned
		for i := range 4 {
			whole := fmt.Sprintf("exemplar %d ", i) + strings.Repeat("never force-push to main ", 1<<20/25)
			out = append(out, Learned{RuleID: "r.a", Text: whole, Affirms: true}, Learned{RuleID: "r.b", Text: whole[:40]})
		}
		return out
	}
	live := func(string) bool { return true }
	ls := learned()
	var held []weak.Pointer[byte]
	for _, l := range ls {
		if l.Affirms {
			held = append(held, weak.Make(unsafe.StringData(l.Text)))
		}
	}
	affirm, contrary, err := lc.vectors(t.Context(), emb, ls, live)
	if err != nil || len(affirm) != 4 || len(contrary) != 4 {
		t.Fatalf("vectors: %d affirming, %d contrary rows, err %v; want 4 and 4", len(affirm), len(contrary), err)
	}
	ls = nil
	runtime.GC()
	for i, p := range held {
		if p.Value() != nil {
			t.Errorf("exemplar %d (1 MB) is still reachable after the caller dropped it", i)
		}
	}
	before := emb.texts.Load()
	if _, _, err := lc.vectors(t.Context(), emb, learned(), live); err != nil {
		t.Fatal(err)
	}
	if n := emb.texts.Load() - before; n != 0 {
		t.Errorf("the same texts made anew: %d embedded again, want 0", n)
	}
}
