package memory

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// TestCorpusLearnsConfirmedCorrections: a correction in the confirm band
// that the user accepts becomes a learned exemplar of the rule it was
// resolved to (a counterexample a contrary one) from the next
// classification on; the corpus version moves;
// the same words then auto-match that rule. Rejected confirmations and
// corrections the classifier matched by itself teach nothing.
func TestCorpusLearnsConfirmedCorrections(t *testing.T) {
	s, db := MustDefaultService(t, bands(0.95, 0.05))
	ctx := t.Context()
	corpus := corpus{db}
	pending := func(text string, pol engine.Polarity) RecordResponse {
		t.Helper()
		resp := MustRecord(t, s, engine.Correction{UserText: text, Polarity: pol})
		if resp.Decision != classifier.DecisionConfirm || resp.PendingID == 0 {
			t.Fatalf("%q: decision %s, want confirm", text, resp.Decision)
		}
		return resp
	}
	const (
		mine    = "keep the stream editor away from my source tree"
		counter = "a stream editor one-liner on the fixtures is ok with me"
		other   = "the release notes should go through the stream editor"
	)
	first := pending(mine, engine.Reinforce)
	second := pending(counter, engine.Counter)
	third := pending(other, engine.Reinforce)
	MustRecord(t, s, engine.Correction{UserText: "CORRECT[style.no-emoji]: no party poppers in commit messages"})
	v0, err := corpus.Version(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}

	const rule = "tool.no-sed-for-file-editing"
	for _, c := range []struct {
		id             int64
		action, ruleID string
	}{{first.PendingID, ActionAccept, rule}, {second.PendingID, ActionAccept, rule}, {third.PendingID, ActionReject, ""}} {
		if _, err := s.Confirm(ctx, c.id, c.action, c.ruleID, 0, t0); err != nil {
			t.Fatal(err)
		}
	}
	// Accepted in this process: learned at once, not after learnedMaxAge.
	got, err := corpus.Learned(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []classifier.Learned{
		{RuleID: rule, Text: mine, Affirms: true},
		{RuleID: rule, Text: counter, Affirms: false},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("learned (-want +got):\n%s", d)
	}
	if v, err := corpus.Version(ctx, 0); err != nil || v <= v0 {
		t.Errorf("version %d, %v after learning; was %d", v, err, v0)
	}

	r, err := s.Classify(ctx, mine, engine.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Decision != classifier.DecisionAutoMatch || r.RuleID != rule || r.Polarity != engine.Reinforce {
		t.Errorf("the confirmed words again: %s %s polarity %d score %.3f; want auto_match tool.no-sed-for-file-editing", r.Decision, r.RuleID, r.Polarity, r.Score)
	}
	r, err = s.Classify(ctx, counter, engine.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if r.RuleID != rule || r.Polarity != engine.Counter {
		t.Errorf("the confirmed contradiction again: %s %s polarity %d; want a counterexample of tool.no-sed-for-file-editing", r.Decision, r.RuleID, r.Polarity)
	}
}
