package classifier

import (
	"math"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/classifier/classifiertest"
	"github.com/lexsona/lexsona/engine"
)

func TestEvidenceLean(t *testing.T) {
	nan := math.NaN()
	for _, tt := range []struct {
		ev   evidence
		lean float64
		ok   bool
	}{
		{evidence{affirm: 0.6, contrary: 0.7, lean: nan}, 0.1, true},
		{evidence{affirm: 0.6, contrary: 0.7, lean: 0.05}, 0.15, true},
		{evidence{affirm: 0.8, contrary: 0.5, lean: -0.1}, -0.4, true},
		{evidence{affirm: 0.8, contrary: nan, lean: 0.3}, 0, false},
	} {
		lean, ok := tt.ev.Lean()
		if ok != tt.ok || math.Abs(lean-tt.lean) > 1e-9 {
			t.Errorf("%+v.Lean() = %v, %v; want %v, %v", tt.ev, lean, ok, tt.lean, tt.ok)
		}
	}
}

// TestPolarityDecide walks the decision table of PolarityCheck with the
// default margins (contrary 0.35, unsure −0.10, insist 0.10, cue 0).
func TestPolarityDecide(t *testing.T) {
	nan := math.NaN()
	at := func(lean float64) evidence { return evidence{affirm: 0.5, contrary: 0.5 + lean, lean: nan} }
	none := evidence{affirm: 0.9, contrary: nan, lean: nan}
	const (
		reinforce = iota
		counter
		unsure
	)
	for _, tt := range []struct {
		name   string
		text   string
		ev     evidence
		want   int
		reason string
	}{
		{"clear reinforcement", "pnpm only", at(-0.3), reinforce, ""},
		{"no cue, lean just below unsure", "pnpm only", at(-0.11), reinforce, ""},
		{"no cue, lean at unsure", "pnpm only", at(-0.10), unsure, "contradiction (unsure): the text may say the opposite of tool.x"},
		{"insisting, lean at unsure", "stop using npm", at(-0.10), reinforce, ""},
		{"insisting, lean just below insist", "never npm", at(0.09), reinforce, ""},
		{"insisting, lean at insist", "why did you run npm", at(0.10), unsure, "contradiction (unsure)"},
		{"no cue, lean below contrary", "pnpm only", at(0.34), unsure, "contradiction (unsure)"},
		{"no cue, lean at contrary", "pnpm only", at(0.35), counter, "contradiction: the text says the opposite of tool.x (its lean towards the rule's contrary phrasings is 0.350)"},
		{"insisting, lean at contrary", "don't use npm", at(0.35), counter, "contradiction: "},
		{"cue, lean at 0", "npm is fine here", at(0), counter, `contradiction: the text takes tool.x back (permission "is fine"`},
		{"cue, lean high", "go ahead and use npm", at(0.2), counter, `(permission "go ahead"`},
		{"cue, lean below 0", "no need to apologise", at(-0.01), unsure, `contradiction (unsure): the text may take tool.x back (dismissal "no need to"`},
		{"cue, strongly affirming", "you don't have to ask, just never use npm", at(-0.5), unsure, "confirm to record a counterexample"},
		{"cue, no contrary phrasings", "forget what I said", none, unsure, "the rule has no contrary phrasings to compare with"},
		{"no cue, no contrary phrasings", "pnpm please", none, reinforce, ""},
	} {
		got := DefaultPolarityCheck().decide(DetectCue(tt.text), Insists(tt.text), "tool.x", tt.ev)
		kind := reinforce
		switch {
		case got.pol == engine.Counter && got.unsure:
			kind = unsure
		case got.pol == engine.Counter:
			kind = counter
		case got.unsure || got.pol != engine.Reinforce:
			t.Errorf("%s: %+v is neither a reinforcement nor a counterexample", tt.name, got)
		}
		if kind != tt.want || !strings.Contains(got.reason, tt.reason) || (kind == reinforce) != (got.reason == "") {
			t.Errorf("%s: decide(%q, %+v) = %+v; want kind %d with a reason containing %q", tt.name, tt.text, tt.ev, got, tt.want, tt.reason)
		}
		if kind != reinforce && !strings.HasPrefix(got.reason, ReasonContradiction) {
			t.Errorf("%s: reason %q does not start with %q", tt.name, got.reason, ReasonContradiction)
		}
	}
	off := PolarityCheck{Off: true}.decide(DetectCue("npm is fine here"), Insists("npm is fine here"), "tool.x", at(0.9))
	if off.pol != engine.Reinforce || off.unsure || off.reason != "" {
		t.Errorf("Off: %+v, want a plain reinforcement", off)
	}
}

func TestPolarityCheckValidate(t *testing.T) {
	for _, tt := range []struct {
		p    PolarityCheck
		code string
	}{
		{DefaultPolarityCheck(), ""},
		{PolarityCheck{}, ""},
		{PolarityCheck{ContraryMargin: 0.1, UnsureMargin: 0.2, InsistMargin: 0.2}, engine.EINVALID},
		{PolarityCheck{ContraryMargin: 0.3, UnsureMargin: 0, InsistMargin: 0.4}, engine.EINVALID},
		{PolarityCheck{ContraryMargin: 0.3, UnsureMargin: 0.1, InsistMargin: 0}, engine.EINVALID},
		{PolarityCheck{ContraryMargin: 2}, engine.EINVALID},
		{PolarityCheck{CueMargin: math.NaN()}, engine.EINVALID},
		{PolarityCheck{UnsureMargin: math.Inf(-1)}, engine.EINVALID},
	} {
		MustCode(t, tt.p.Validate(), tt.code)
	}
	c, _ := MustDefaultClassifier(t, Options{Polarity: &PolarityCheck{ContraryMargin: 0, UnsureMargin: 0.5}})
	_, err := c.Classify(t.Context(), "stop using sed", engine.Scope{})
	MustCode(t, err, engine.EINVALID)
}

// mustPolaritySetup is a classifier over two rules with hand-set vectors:
// classifiertest.Polarity's r.a and r.b. Bands auto 0.7, confirm 0.5;
// scores are plain cosines (no term score).
func mustPolaritySetup(tb testing.TB, opts Options) (*Classifier, *fakeEmbedder) {
	tb.Helper()
	reg, emb := classifiertest.Polarity(tb)
	corpus := newMemCorpus(tb, reg, emb)
	if opts.Thresholds == nil {
		opts.Thresholds = &Thresholds{Auto: 0.7, Confirm: 0.5}
	}
	if opts.TermWeight == nil {
		opts.TermWeight = new(float64)
	}
	return New(corpus, emb, opts), emb
}

// TestClassifyPolarity: the contrary phrasings count towards a rule's score
// and decide the polarity; a cue sends an affirming-looking text to confirm
// with polarity −1; a rule without contrary phrasings relies on the cue;
// explicit corrections and a disabled check are reinforcements.
func TestClassifyPolarity(t *testing.T) {
	c, _ := mustPolaritySetup(t, Options{})
	for _, tt := range []struct {
		text     string
		decision string
		rule     string
		pol      engine.Polarity
		reason   string
	}{
		{"reinforcing text", DecisionAutoMatch, "r.a", engine.Reinforce, ""},
		{"contrary wording here", DecisionAutoMatch, "r.a", engine.Counter, "contradiction: the text says the opposite of r.a"},
		{"npm is fine here", DecisionConfirm, "r.a", engine.Counter, `contradiction (unsure): the text may take r.a back (permission "is fine"`},
		{"halfway between template a and contrary a", DecisionConfirm, "r.a", engine.Counter, "contradiction (unsure): the text may say the opposite of r.a"},
		{"no need for contrary wording, b is fine", DecisionAutoMatch, "r.b", engine.Counter, "contradiction (unsure)"},
		{"plain words naming rule b", DecisionAutoMatch, "r.b", engine.Reinforce, ""},
		{"CORRECT[r.a]: npm is fine here", DecisionExplicit, "r.a", engine.Reinforce, ""},
	} {
		r, err := c.Classify(t.Context(), tt.text, engine.Scope{})
		if err != nil {
			t.Fatalf("%q: %v", tt.text, err)
		}
		if tt.text == "no need for contrary wording, b is fine" {
			// Unsure at auto: sent to confirm.
			tt.decision = DecisionConfirm
		}
		if r.Decision != tt.decision || r.RuleID != tt.rule || r.Polarity != tt.pol || !strings.HasPrefix(r.Reason, tt.reason) || (tt.reason == "") != (r.Reason == "") {
			t.Errorf("%q: %s %s polarity %d reason %q; want %s %s polarity %d reason %q…", tt.text, r.Decision, r.RuleID, r.Polarity, r.Reason,
				tt.decision, tt.rule, tt.pol, tt.reason)
		}
	}
	off, _ := mustPolaritySetup(t, Options{Polarity: &PolarityCheck{Off: true}})
	if r, err := off.Classify(t.Context(), "contrary wording here", engine.Scope{}); err != nil || r.Decision != DecisionAutoMatch || r.Polarity != engine.Reinforce || r.Reason != "" {
		t.Errorf("polarity check off: %+v, %v", r, err)
	}
}
