package memory

import (
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// TestRetractTakesBackEvidence: a retracted reinforcement leaves the rule
// with the α/β and counts of the events that remain, withdraws the
// statement it made, stays in the history beside its retraction, and
// cannot be retracted twice.
func TestRetractTakesBackEvidence(t *testing.T) {
	s, db := MustDefaultService(t, Options{})
	before := mustRule(t, db, "tool.pnpm-not-npm")
	res := MustRecord(t, s, engine.Correction{UserText: "CORRECT[tool.pnpm-not-npm]: pnpm here", At: t0})
	second := MustRecord(t, s, engine.Correction{UserText: "pnpm please", RuleID: "tool.pnpm-not-npm", At: t0.Add(time.Minute)})
	if r := mustRule(t, db, "tool.pnpm-not-npm"); r.Stated == nil {
		t.Fatal("CORRECT[] did not state the rule")
	}
	out, err := s.Retract(t.Context(), res.EventID, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	r := mustRule(t, db, "tool.pnpm-not-npm")
	if r.Alpha != before.Alpha+1 || r.Reinforcements != before.Reinforcements+1 || r.Stated != nil {
		t.Errorf("after the retraction: α %v n %d stated %+v; want α %v n %d, not stated", r.Alpha, r.Reinforcements, r.Stated, before.Alpha+1, before.Reinforcements+1)
	}
	if !r.LastCorrection.Equal(t0.Add(time.Minute)) {
		t.Errorf("last correction %v, want the remaining event's %v", r.LastCorrection, t0.Add(time.Minute))
	}
	if out.Rule.RuleID != r.RuleID || out.RetractionID == 0 {
		t.Errorf("result %+v", out)
	}
	ev, err := db.GetEvent(t.Context(), res.EventID)
	if err != nil || ev.RetractedBy != out.RetractionID {
		t.Errorf("retracted event %+v %v", ev, err)
	}
	if _, err := s.Retract(t.Context(), res.EventID, time.Time{}); engine.ErrorCode(err) != engine.ECONFLICT {
		t.Errorf("second retraction: %v, want conflict", err)
	}
	if _, err := s.Retract(t.Context(), out.RetractionID, time.Time{}); engine.ErrorCode(err) != engine.ECONFLICT {
		t.Errorf("retracting a retraction: %v, want conflict", err)
	}
	if _, err := s.Retract(t.Context(), 999999, time.Time{}); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Errorf("unknown event: %v", err)
	}
	_ = second
}

// TestLearnedListsWhatHappened: the view holds recorded events with their
// rule's text and retraction, open suggestions, and every captured prompt
// with what it became, ignored ones with the gate's verdict.
func TestLearnedListsWhatHappened(t *testing.T) {
	s, _ := mustRealService(t)
	for _, text := range []string{
		"CORRECT[tool.pnpm-not-npm]: pnpm here",
		"I told you already, stop running sed -i on my source files and use the edit tool",
		"add a health check endpoint to the billing service",
	} {
		if _, err := s.Capture(t.Context(), engine.Correction{UserText: text, FrameID: "s-l", At: t0}); err != nil {
			t.Fatal(err)
		}
	}
	l, err := s.Learned(t.Context(), t0.Add(-time.Minute), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Events) != 1 || l.Events[0].RuleID != "tool.pnpm-not-npm" || l.Events[0].RuleText == "" {
		t.Errorf("events %+v", l.Events)
	}
	if len(l.Suggestions) != 1 || l.Suggestions[0].Candidates[0].RuleID != "tool.no-sed-for-file-editing" {
		t.Errorf("suggestions %+v", l.Suggestions)
	}
	actions := map[string]bool{}
	for _, c := range l.Captures {
		actions[c.Action] = true
		if c.Action == CaptureIgnored && (c.Gate == nil || !strings.Contains(c.Reason, "gate")) {
			t.Errorf("ignored capture without the gate's verdict: %+v", c)
		}
	}
	if len(l.Captures) != 3 || !actions[CaptureRecorded] || !actions[CapturePending] || !actions[CaptureIgnored] {
		t.Errorf("captures %+v", l.Captures)
	}
	if _, err := s.Learned(t.Context(), t0, MaxLearnedLimit+1); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("limit over the maximum: %v", err)
	}
}
