package memory

import (
	"strings"
	"testing"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// mustPending records text in the confirm band and returns its pending id.
func mustPending(tb testing.TB, s *Service, text string, pol engine.Polarity) (int64, RecordResponse) {
	tb.Helper()
	resp := MustRecord(tb, s, engine.Correction{UserText: text, Polarity: pol, Scope: engine.Scope{Project: "api", ContextTags: []string{"cli"}}})
	if resp.Decision != classifier.DecisionConfirm || resp.PendingID == 0 {
		tb.Fatalf("%q: decision %s, want confirm", text, resp.Decision)
	}
	return resp.PendingID, resp
}

func TestConfirm(t *testing.T) {
	s, db := MustDefaultService(t, bands(1, 0.3))
	// Each subtest words its correction differently: an accepted text is a
	// learned exemplar, and the same words then match their rule at once.
	const sedText = "please quit using sed when you edit my files"

	t.Run("accept top candidate", func(t *testing.T) {
		id, rec := mustPending(t, s, sedText, engine.Reinforce)
		top := rec.Candidates[0].RuleID
		before, rule := MustCount(t, db), mustRule(t, db, top)
		res, err := s.Confirm(t.Context(), id, ActionAccept, "", 0, t0)
		if err != nil {
			t.Fatal(err)
		}
		after := MustCount(t, db)
		if res.Status != engine.PendingAccepted || res.RuleID != top || res.EventType != engine.EventConfirmation || res.Alpha != rule.Alpha+1 || res.Beta != rule.Beta {
			t.Errorf("result %+v %+v", res, res.RecordResult)
		}
		if after.Events != before.Events+1 || after.Pending != before.Pending || after.Rules != before.Rules {
			t.Errorf("wrote %+v → %+v", before, after)
		}
		ev := lastEvent(t, db, top)
		if ev.EventType != engine.EventConfirmation || ev.UserText != sedText || ev.Score == nil || ev.Scope.Project != "api" ||
			!strings.Contains(ev.Detail, "reinforcement") || len(ev.Candidates) == 0 {
			t.Errorf("event %+v", ev)
		}
		p, _ := db.GetPending(t.Context(), id)
		if p.Status != engine.PendingAccepted || p.RuleID != top || p.ResolvedAt == nil {
			t.Errorf("pending %+v", p)
		}
		_, err = s.Confirm(t.Context(), id, ActionReject, "", 0, t0)
		MustCode(t, err, engine.ECONFLICT)
		if !strings.Contains(engine.ErrorMessage(err), "already resolved") {
			t.Errorf("message %q", engine.ErrorMessage(err))
		}
	})

	t.Run("accept another rule as a counterexample", func(t *testing.T) {
		id, _ := mustPending(t, s, "stop editing files with sed please", engine.Counter)
		rule := mustRule(t, db, "style.no-emoji")
		res, err := s.Confirm(t.Context(), id, ActionAccept, "style.no-emoji", 0, t0)
		if err != nil {
			t.Fatal(err)
		}
		if res.RuleID != "style.no-emoji" || res.Beta != rule.Beta+1 || res.Alpha != rule.Alpha {
			t.Errorf("result %+v", res.RecordResult)
		}
		if got := mustRule(t, db, "style.no-emoji"); got.CounterExamples != rule.CounterExamples+1 {
			t.Errorf("counterexamples %d → %d", rule.CounterExamples, got.CounterExamples)
		}
		if ev := lastEvent(t, db, "style.no-emoji"); ev.Score != nil || !strings.Contains(ev.Detail, "counterexample") {
			t.Errorf("event %+v (a rule outside the candidates has no score)", ev)
		}
	})

	t.Run("reject", func(t *testing.T) {
		id, _ := mustPending(t, s, "do not use sed to change my files", engine.Reinforce)
		before := MustCount(t, db)
		res, err := s.Confirm(t.Context(), id, ActionReject, "", 0, t0)
		if err != nil || res.Status != engine.PendingRejected || res.RecordResult != nil {
			t.Fatalf("%+v, %v", res, err)
		}
		if after := MustCount(t, db); after != before {
			t.Errorf("reject wrote %+v → %+v", before, after)
		}
		if p, _ := db.GetPending(t.Context(), id); p.Status != engine.PendingRejected {
			t.Errorf("pending %+v", p)
		}
	})

	t.Run("errors", func(t *testing.T) {
		id, _ := mustPending(t, s, "quit editing my files through sed", engine.Reinforce)
		before := MustCount(t, db)
		for _, tt := range []struct {
			id             int64
			action, ruleID string
			code           string
		}{
			{999999, ActionAccept, "", engine.ENOTFOUND},
			{id, "maybe", "", engine.EINVALID},
			{id, ActionReject, "style.no-emoji", engine.EINVALID},
			{id, ActionAccept, "Bad Id", engine.EINVALID},
			{id, ActionAccept, "tool.nope", engine.ENOTFOUND},
		} {
			_, err := s.Confirm(t.Context(), tt.id, tt.action, tt.ruleID, 0, t0)
			MustCode(t, err, tt.code)
		}
		if after := MustCount(t, db); after != before {
			t.Errorf("errors wrote %+v → %+v", before, after)
		}
		if p, _ := db.GetPending(t.Context(), id); p.Status != engine.PendingOpen {
			t.Errorf("pending %+v", p)
		}
	})

	t.Run("batch", func(t *testing.T) {
		a, _ := mustPending(t, s, "no sed for my files", engine.Reinforce)
		b, _ := mustPending(t, s, "no sed for my files", engine.Reinforce)
		items := s.ConfirmBatch(t.Context(), []int64{a, 424242, b, a}, ActionReject, "", 0, t0)
		if len(items) != 4 || items[0].Result == nil || items[1].Error == nil || items[1].Error.Code != engine.ENOTFOUND ||
			items[2].Result == nil || items[3].Error == nil || items[3].Error.Code != engine.ECONFLICT ||
			!strings.Contains(items[3].Error.Message, "already resolved") {
			t.Errorf("batch %+v", items)
		}
	})
	// Last: afterwards the text matches the rule it created.
	t.Run("new", func(t *testing.T) {
		newText := "keep sed away from my files"
		id, _ := mustPending(t, s, newText, engine.Reinforce)
		before := MustCount(t, db)
		res, err := s.Confirm(t.Context(), id, ActionNew, "", 0, t0)
		if err != nil {
			t.Fatal(err)
		}
		r := res.CreatedRule
		if res.Status != engine.PendingNewRule || r == nil || r.Status != engine.StatusCandidate || r.Alpha != 3 || r.Beta != 5 ||
			r.Scope.Project != "api" || len(r.Scope.ContextTags) != 0 || res.EventType != engine.EventCreation {
			t.Fatalf("%+v %+v", res, r)
		}
		after := MustCount(t, db)
		if after.Rules != before.Rules+1 || after.Events != before.Events+1 || after.Embeddings != before.Embeddings+1 {
			t.Errorf("wrote %+v → %+v", before, after)
		}
		// The text now matches its own rule exactly (in the same project).
		got, err := s.Classify(t.Context(), newText, engine.Scope{Project: "api"})
		if err != nil || got.RuleID != r.RuleID || got.Score != 1 {
			t.Errorf("after new: %+v, %v", got, err)
		}
	})

}

// Counterexamples the user confirmed count toward exception proposals like
// any other counterexample: three sharing the tag "cli" propose one.
func TestConfirmedCounterexamplesProposeAnException(t *testing.T) {
	s, db := MustDefaultService(t, bands(1, 0.3))
	var last ConfirmResult
	var target string
	// Three wordings: an accepted one is learned and would match at once.
	for i, text := range []string{"please quit using sed when you edit my files", "stop editing files with sed please", "do not use sed to change my files"} {
		id, rec := mustPending(t, s, text, engine.Counter)
		target = rec.Candidates[0].RuleID
		res, err := s.Confirm(t.Context(), id, ActionAccept, target, 0, t0)
		if err != nil {
			t.Fatal(err)
		}
		if res.EventType != engine.EventConfirmation || lastEvent(t, db, target).Polarity != engine.Counter {
			t.Fatalf("confirmation %d: %+v", i, res.RecordResult)
		}
		last = res
	}
	p := last.Exception
	if p == nil || p.ParentID != target || p.Tag != "cli" || p.Count != 3 {
		t.Fatalf("exception proposal %+v", p)
	}
	if r := mustRule(t, db, p.Rule.RuleID); r.Status != engine.StatusCandidate || r.ExceptionOf != target {
		t.Errorf("proposed rule %+v", r)
	}
}
