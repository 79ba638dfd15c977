package classifier

import (
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/registry"
)

// mustPolaritySetup is a classifier over two rules with hand-set vectors:
// r.a ("template a" on e0, its contrary phrasing "contrary a" on e1) and r.b
// ("template b" on e2, no contrary phrasing). Bands auto 0.7, confirm 0.5;
// scores are plain cosines (no term score).
func mustPolaritySetup(tb testing.TB, opts Options) (*Classifier, *fakeEmbedder) {
	tb.Helper()
	const dims = 4
	reg, err := registry.Parse([]byte(`version: 1
rules:
  - {rule_id: r.a, category: code_style, severity: should, template: "template a", contrary: ["contrary a"]}
  - {rule_id: r.b, category: code_style, severity: should, template: "template b"}
`), "polarity.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	emb := &fakeEmbedder{dims: dims, vectors: map[string][]float32{
		"template a": basis(dims, 0), "contrary a": basis(dims, 1), "template b": basis(dims, 2),
		"reinforcing text":                          basis(dims, 0),
		"contrary wording here":                     basis(dims, 1),
		"npm is fine here":                          {0.8, 0.6, 0, 0}, // a cue, but closer to the template
		"CORRECT[r.a]: npm is fine here":            {0.8, 0.6, 0, 0},
		"no need for contrary wording, b is fine":   {0, 0.6, 0.8, 0}, // a cue on a rule without contrary phrasings
		"plain words naming rule b":                 basis(dims, 2),
		"halfway between template a and contrary a": {0.7, 0.714, 0, 0},
	}}
	db := MustOpenStore(tb)
	MustSync(tb, db, emb, reg)
	if opts.Thresholds == nil {
		opts.Thresholds = &Thresholds{Auto: 0.7, Confirm: 0.5}
	}
	if opts.TermWeight == nil {
		opts.TermWeight = new(float64)
	}
	return New(db, emb, opts), emb
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

// TestRecordNeverReinforcesAContradiction: a detected contradiction at auto
// records a counterexample; one sent to confirm keeps polarity −1 so that
// accepting it records a counterexample; the caller's −1 always wins; an
// explicit correction is a reinforcement unless the caller says −1.
func TestRecordNeverReinforcesAContradiction(t *testing.T) {
	c, _ := mustPolaritySetup(t, Options{})
	ctx := t.Context()
	rule := func() engine.Rule {
		r, err := c.db.GetRule(ctx, "r.a")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	evidence := func(name string, before engine.Rule, reinforcements, counters int) {
		t.Helper()
		after := rule()
		if after.Reinforcements-before.Reinforcements != reinforcements || after.CounterExamples-before.CounterExamples != counters {
			t.Errorf("%s: %d reinforcements and %d counterexamples added, want %d and %d", name,
				after.Reinforcements-before.Reinforcements, after.CounterExamples-before.CounterExamples, reinforcements, counters)
		}
	}

	before := rule()
	resp := MustRecord(t, c, RecordRequest{Text: "contrary wording here"})
	if resp.Decision != DecisionAutoMatch || resp.Polarity != engine.Counter || resp.EventType != engine.EventCounterexample ||
		!strings.HasPrefix(resp.Reason, ReasonContradiction) {
		t.Errorf("auto contradiction: %+v", resp)
	}
	evidence("auto contradiction", before, 0, 1)

	before = rule()
	resp = MustRecord(t, c, RecordRequest{Text: "npm is fine here"})
	if resp.Decision != DecisionConfirm || resp.Polarity != engine.Counter || resp.PendingID == 0 || resp.RecordResult != nil {
		t.Fatalf("unsure contradiction: %+v", resp)
	}
	evidence("unsure contradiction, pending", before, 0, 0)
	p, err := c.db.GetPending(ctx, resp.PendingID)
	if err != nil || p.Polarity != engine.Counter {
		t.Fatalf("pending %+v, %v: want polarity −1", p, err)
	}
	res, err := c.Confirm(ctx, resp.PendingID, ActionAccept, "", t0)
	if err != nil || res.RuleID != "r.a" {
		t.Fatalf("Confirm: %+v, %v", res, err)
	}
	evidence("unsure contradiction, accepted", before, 0, 1)
	if ev := lastEvent(t, c.db, "r.a"); ev.EventType != engine.EventConfirmation || ev.Polarity != engine.Counter {
		t.Errorf("confirmation event %+v: want polarity −1", ev)
	}

	before = rule()
	if resp := MustRecord(t, c, RecordRequest{Text: "reinforcing text"}); resp.Polarity != engine.Reinforce || resp.EventType != engine.EventReinforcement {
		t.Errorf("reinforcement: %+v", resp)
	}
	evidence("reinforcement", before, 1, 0)

	before = rule()
	if resp := MustRecord(t, c, RecordRequest{Text: "reinforcing text", Polarity: engine.Counter, IdempotencyKey: "k-counter"}); resp.Polarity != engine.Counter || resp.EventType != engine.EventCounterexample {
		t.Errorf("caller's −1: %+v", resp)
	}
	evidence("caller's −1", before, 0, 1)

	before = rule()
	if resp := MustRecord(t, c, RecordRequest{Text: "CORRECT[r.a]: npm is fine here"}); resp.Decision != DecisionExplicit || resp.Polarity != engine.Reinforce {
		t.Errorf("explicit: %+v", resp)
	}
	if resp := MustRecord(t, c, RecordRequest{Text: "npm is fine here", RuleID: "r.a", Polarity: engine.Counter}); resp.Decision != DecisionExplicit || resp.Polarity != engine.Counter {
		t.Errorf("explicit −1: %+v", resp)
	}
	evidence("explicit", before, 1, 1)
}
