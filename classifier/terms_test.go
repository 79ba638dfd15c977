package classifier

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
)

func TestStem(t *testing.T) {
	for w, want := range map[string]string{
		"edits": "edit", "editing": "edit", "edited": "edit", "commits": "commit", "committed": "commit",
		"files": "fil", "file": "fil", "pushes": "push", "passes": "pass", "fixes": "fix", "npm": "npm", "uses": "use",
		"emoji": "emoji", "emojis": "emoji", "sudo": "sudo", "is": "is",
	} {
		if got := Stem(w); got != want {
			t.Errorf("Stem(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestTerms(t *testing.T) {
	if diff := cmp.Diff([]string{"sed", "edit", "fil"}, terms("Stop using SED to edit the files!")); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
	if got := terms("nope, that's wrong again"); got != nil {
		t.Errorf("terms of a generic text: %v", got)
	}
}

// TestTermIndex: a word only one rule uses decides; a word every rule uses
// counts less; words no rule uses are left out of the text's vector; a text
// without informative words scores nothing.
func TestTermIndex(t *testing.T) {
	ids := []string{"r.pnpm", "r.sed", "r.empty"}
	texts := []Text{
		{RuleID: "r.pnpm", Text: "use pnpm for packages"},
		{RuleID: "r.pnpm", Text: "pnpm not npm"},
		{RuleID: "r.sed", Text: "never edit packages with sed or awk"},
		{RuleID: "r.other", Text: "pnpm sed"}, // not in ids
	}
	ix := newTermIndex(ids, texts)
	score := func(text string) []float64 {
		dst := make([]float64, len(ids))
		ix.scores(text, dst)
		return dst
	}
	s := score("pnpm please")
	if math.Abs(s[0]-1/math.Sqrt(1+sq(ix.idf[ix.terms["packag"]]/ix.idf[ix.terms["pnpm"]])+sq(ix.idf[ix.terms["npm"]]/ix.idf[ix.terms["pnpm"]]))) > 1e-6 || s[1] != 0 || s[2] != 0 {
		t.Errorf("scores of %q = %v", "pnpm please", s)
	}
	if s := score("packages"); !(s[0] > 0 && s[1] > 0 && s[0] > s[1]) { // shared word; r.sed's document is longer
		t.Errorf("scores of %q = %v", "packages", s)
	}
	if a, b := score("sed"), score("sed and the kitchen sink"); a[1] != b[1] || a[1] == 0 {
		t.Errorf("an unknown word changed the score: %v vs %v", a, b)
	}
	if s := score("nope, try again"); s[0] != 0 || s[1] != 0 || s[2] != 0 {
		t.Errorf("a generic text scored %v", s)
	}
	if ix.idf[ix.terms["pnpm"]] <= ix.idf[ix.terms["packag"]] {
		t.Errorf("idf: a word of one rule (%v) should weigh more than one of two (%v)", ix.idf[ix.terms["pnpm"]], ix.idf[ix.terms["packag"]])
	}
}

func sq(x float32) float64 { return float64(x) * float64(x) }

// TestTermWeightMixesScores: with fake vectors a text scores its cosine with
// the template at term weight 0 and (1−t)·cosine + t·term score otherwise;
// a term weight out of [0, 1] is refused.
func TestTermWeightMixesScores(t *testing.T) {
	const dims = 8
	c, emb := mustFakeSetup(t, dims, map[string][]float32{"a": basis(dims, 0), "b": basis(dims, 1)}, Options{})
	text := "template a please"
	v := make([]float32, dims)
	v[0], v[2] = 0.6, 0.8 // cosine 0.6 with r.a's template, 0 with r.b's
	emb.Vectors[text] = v
	zero, r0 := c.Classify(t.Context(), text, engine.Scope{})
	if r0 != nil || zero.Score != 0.6 {
		t.Fatalf("term weight 0: %+v, %v", zero, r0)
	}
	half := 0.5
	h := New(c.corpus, emb, Options{TermWeight: &half})
	got, err := h.Classify(t.Context(), text, engine.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	// "template a please": terms [templat] (the one-letter "a" is dropped),
	// shared by both templates, so both score the same term cosine, 1/1 = 1.
	if want := RoundScore(0.5*0.6 + 0.5*1); got.Candidates[0].RuleID != "r.a" || got.Score != want {
		t.Errorf("term weight 0.5: %+v, want r.a at %v", got, want)
	}
	for _, w := range []float64{-0.1, 1.5, math.NaN()} {
		_, err := New(c.corpus, emb, Options{TermWeight: &w}).Classify(t.Context(), text, engine.Scope{})
		MustCode(t, err, engine.EINVALID)
	}
}
