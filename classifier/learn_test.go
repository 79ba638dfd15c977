package classifier

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// countingEmbedder counts Embed calls; it hides the embedder's EmbedSparse,
// so the classifier embeds through Embed.
type countingEmbedder struct {
	models.Embedder
	calls atomic.Int32
}

func (e *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.calls.Add(1)
	return e.Embedder.Embed(ctx, texts)
}

// TestDecide: a rule the caller names makes the decision explicit (and must
// exist, and agree with a CORRECT[...] prefix); the caller's counterexample
// skips the polarity check; otherwise Decide decides as Classify does.
func TestDecide(t *testing.T) {
	c, _ := MustDefaultClassifier(t, Options{})
	ctx := t.Context()
	cl, err := c.Decide(ctx, "whatever you call it", engine.Scope{}, "style.no-emoji", false)
	if err != nil || cl.Decision != DecisionExplicit || cl.RuleID != "style.no-emoji" || cl.Score != 1 || cl.Polarity != engine.Reinforce {
		t.Errorf("named rule: %+v, %v", cl.Result, err)
	}
	cl, err = c.Decide(ctx, "CORRECT[style.no-emoji]: x", engine.Scope{}, "style.no-emoji", true)
	if err != nil || cl.Decision != DecisionExplicit || cl.Polarity != engine.Counter {
		t.Errorf("named twice, counter: %+v, %v", cl.Result, err)
	}
	_, err = c.Decide(ctx, "CORRECT[style.no-emoji]: x", engine.Scope{}, "tool.pnpm-not-npm", false)
	MustCode(t, err, engine.EINVALID)
	_, err = c.Decide(ctx, "use pnpm", engine.Scope{}, "tool.nope", false)
	MustCode(t, err, engine.ENOTFOUND)
	for _, text := range []string{"stop editing files with sed", "the quokka enclosure needs repainting in teal", "that's wrong"} {
		r, err := c.Classify(ctx, text, engine.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		cl, err := c.Decide(ctx, text, engine.Scope{}, "", false)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(r, cl.Result); d != "" {
			t.Errorf("%q: Decide differs from Classify (-classify +decide):\n%s", text, d)
		}
	}

	p, _ := mustPolaritySetup(t, Options{})
	for _, tt := range []struct {
		text    string
		counter bool
		pol     engine.Polarity
		reason  string
	}{
		{"contrary wording here", false, engine.Counter, ReasonContradiction},
		{"reinforcing text", true, engine.Counter, ""},
		{"contrary wording here", true, engine.Counter, ""},
	} {
		cl, err := p.Decide(ctx, tt.text, engine.Scope{}, "", tt.counter)
		if err != nil || cl.Decision != DecisionAutoMatch || cl.RuleID != "r.a" || cl.Polarity != tt.pol ||
			!strings.HasPrefix(cl.Reason, tt.reason) || (tt.reason == "") != (cl.Reason == "") {
			t.Errorf("%q counter=%v: %+v, %v; want auto_match r.a polarity %d reason %q…", tt.text, tt.counter, cl.Result, err, tt.pol, tt.reason)
		}
	}
}

// TestLearnable: only a new_rule that is neither generic nor a
// counterexample can propose a rule; the others say why nothing is learned.
func TestLearnable(t *testing.T) {
	c, _ := MustDefaultClassifier(t, Options{Thresholds: &Thresholds{Auto: 0.99, Confirm: 0.98}})
	auto, _ := MustDefaultClassifier(t, Options{})
	for _, tt := range []struct {
		name     string
		c        *Classifier
		text     string
		counter  bool
		decision string
		learn    bool
		why      string
	}{
		{"specific", c, "write commit messages in the imperative mood", false, DecisionNewRule, true, ""},
		{"generic", c, "that's wrong", false, DecisionNewRule, false, "no rule can be learned"},
		{"counterexample", c, "write commit messages in the imperative mood", true, DecisionNewRule, false, "no rule to count it against"},
		{"auto_match", auto, "stop editing files with sed", false, DecisionAutoMatch, false, ""},
	} {
		cl, err := tt.c.Decide(t.Context(), tt.text, engine.Scope{}, "", tt.counter)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if cl.Decision != tt.decision || cl.Learnable() != tt.learn {
			t.Errorf("%s: %s learnable=%v, want %s learnable=%v", tt.name, cl.Decision, cl.Learnable(), tt.decision, tt.learn)
		}
		if why := cl.UnlearnableReason(); tt.why != "" && (!strings.Contains(why, tt.why) || !strings.HasPrefix(why, "nothing was recorded")) {
			t.Errorf("%s: reason %q does not say %q", tt.name, why, tt.why)
		}
	}
}

// TestVectors: a text's vectors are the embedders' own; those of the text a
// classification embedded are reused without embedding it again, and a
// hybrid classifier adds the lexical model's.
func TestVectors(t *testing.T) {
	ctx := t.Context()
	lex := MustLexical(t, nil)
	corpus := newMemCorpus(t, nil, lex)
	emb := &countingEmbedder{Embedder: lex}
	c := New(corpus, emb, Options{})
	text := "the quokka enclosure needs repainting in teal"
	want, err := lex.Embed(ctx, []string{text})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := c.Decide(ctx, text, engine.Scope{}, "", false)
	if err != nil {
		t.Fatal(err)
	}
	n := emb.calls.Load()
	got, err := c.Vectors(ctx, CandidateText(text), &cl)
	if err != nil {
		t.Fatal(err)
	}
	if emb.calls.Load() != n {
		t.Errorf("Vectors embedded the classified text again (%d Embed calls, %d before)", emb.calls.Load(), n)
	}
	wantTV := TextVectors{Text: text, Model: lex.Identity().ID(), Vector: want[0]}
	if d := cmp.Diff(wantTV, got); d != "" {
		t.Errorf("reused vectors (-want +got):\n%s", d)
	}
	fresh, err := c.Vectors(ctx, text, nil)
	if err != nil || emb.calls.Load() != n+1 {
		t.Fatalf("Vectors without a classification: %v, %d Embed calls, want %d", err, emb.calls.Load(), n+1)
	}
	if d := cmp.Diff(wantTV, fresh); d != "" {
		t.Errorf("fresh vectors (-want +got):\n%s", d)
	}
	other := "write commit messages in the imperative mood"
	ov, err := c.Vectors(ctx, other, &cl)
	wantOther, _ := lex.Embed(ctx, []string{other})
	if err != nil || ov.Text != other || !cmp.Equal(ov.Vector, wantOther[0]) {
		t.Errorf("another text than the classified one: %+v, %v", ov, err)
	}

	// Sparse query (the lexical embedder itself), hybrid.
	h := New(corpus, lex, Options{Lexical: lex, LexicalWeight: 0.3})
	hcl, err := h.Decide(ctx, text, engine.Scope{}, "", false)
	if err != nil {
		t.Fatal(err)
	}
	hv, err := h.Vectors(ctx, text, &hcl)
	wantH := TextVectors{Text: text, Model: lex.Identity().ID(), Vector: want[0], LexModel: lex.Identity().ID(), LexVector: want[0]}
	if d := cmp.Diff(wantH, hv); err != nil || d != "" {
		t.Errorf("hybrid vectors, %v (-want +got):\n%s", err, d)
	}

	bad := New(corpus, lex, Options{LexicalWeight: 2, Lexical: lex})
	_, err = bad.Vectors(ctx, text, nil)
	MustCode(t, err, engine.EINVALID)
	MustCode(t, bad.Err(), engine.EINVALID)
	MustCode(t, c.Err(), "")
}

// TestCandidateText: a candidate's text is the correction with its white
// space folded, cut to a rule text's length.
func TestCandidateText(t *testing.T) {
	if got := CandidateText("  the quokka\t enclosure\nneeds   teal  "); got != "the quokka enclosure needs teal" {
		t.Errorf("CandidateText = %q", got)
	}
	long := CandidateText(strings.Repeat("teal paint ", engine.MaxRuleTextLength))
	if len(long) == 0 || len(long) > engine.MaxRuleTextLength || !strings.HasPrefix(long, "teal paint teal") {
		t.Errorf("a long correction's candidate text has %d bytes (at most %d)", len(long), engine.MaxRuleTextLength)
	}
}
