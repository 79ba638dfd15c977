package memory

import (
	"testing"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// TestRenamedIDReachesTheRule: after a rename, the old id still reaches the
// rule in every use case that names one — reading it, its history, editing,
// a CORRECT[old-id] correction, accepting a suggestion whose candidates
// name the old id — until a rule is created under the old id, which then
// takes it back.
func TestRenamedIDReachesTheRule(t *testing.T) {
	s, db := MustDefaultService(t, bands(1, 0.3))
	ctx := t.Context()
	const text = "please quit using sed when you edit my files"
	pid, rec := mustPending(t, s, text, engine.Reinforce)
	old := rec.Candidates[0].RuleID
	renamed := "tool.never-sed"
	if _, err := s.EditRule(ctx, old, RulePatch{RenameTo: &renamed}, t0); err != nil {
		t.Fatal(err)
	}

	v, err := s.GetRule(ctx, old, t0)
	if err != nil || v.RuleID != renamed {
		t.Fatalf("GetRule(%s) = %s, %v; want %s", old, v.RuleID, err, renamed)
	}
	h, err := s.History(ctx, old, 0, 0)
	if err != nil || h.RuleID != renamed || len(h.Events) < 2 {
		t.Errorf("History(%s) = %s with %d events, %v; want %s's", old, h.RuleID, len(h.Events), err, renamed)
	}
	topic := "file-editing"
	if v, err := s.EditRule(ctx, old, RulePatch{Topic: &topic}, t0); err != nil || v.RuleID != renamed || v.Topic != topic {
		t.Errorf("EditRule(%s) = %+v, %v", old, v, err)
	}

	before := mustRule(t, db, renamed)
	resp := MustRecord(t, s, engine.Correction{UserText: "CORRECT[" + old + "]: stop it with sed"})
	if resp.Decision != classifier.DecisionExplicit || resp.RuleID != renamed || resp.Alpha != before.Alpha+1 {
		t.Errorf("CORRECT[%s]: %+v %+v; want a reinforcement of %s", old, resp, resp.RecordResult, renamed)
	}

	res, err := s.Confirm(ctx, pid, ActionAccept, "", 0, t0)
	if err != nil || res.RuleID != renamed || lastEvent(t, db, renamed).Score == nil {
		t.Errorf("accepting a suggestion whose top candidate is %s: %+v, %v; want it applied to %s with its score", old, res.RecordResult, err, renamed)
	}

	if _, err := s.AddRule(ctx, NewRule{RuleID: old, Category: "general", Text: "a rule that takes the id back"}); err != nil {
		t.Fatal(err)
	}
	if v, err := s.GetRule(ctx, old, t0); err != nil || v.RuleID != old {
		t.Errorf("GetRule(%s) after it was created again = %s, %v", old, v.RuleID, err)
	}
	if _, err := s.GetRule(ctx, "tool.never-existed", t0); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Errorf("an id that never existed: %v; want ENOTFOUND", err)
	}
}
