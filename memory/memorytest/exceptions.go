package memorytest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

// counter records a counterexample on id in a context with the given tags.
func counter(t *testing.T, db *store.DB, id string, i int, tags ...string) memory.RecordResult {
	t.Helper()
	return MustRecord(t, db, engine.Correction{RuleID: id, Polarity: engine.Counter, UserText: "sed is fine here",
		Scope: engine.Scope{ContextTags: tags}, At: t0.Add(time.Duration(i) * time.Hour)})
}

func testExceptionProposal(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	parent := storetest.MustCreate(t, db, "tool.no-sed", "tool_preference", engine.Scope{Environment: "work"})
	if r := counter(t, db, parent.RuleID, 1, "migration", "php"); r.Exception != nil {
		t.Fatalf("proposal after one counterexample: %+v", r.Exception)
	}
	counter(t, db, parent.RuleID, 2, "migration")
	counter(t, db, parent.RuleID, 3, "php")
	res := counter(t, db, parent.RuleID, 4, "migration", "cli")
	p := res.Exception
	if p == nil {
		t.Fatal("no proposal after three counterexamples tagged migration")
	}
	wantID := "tool.no-sed.except-migration"
	if p.ParentID != parent.RuleID || p.Tag != "migration" || p.Count != 3 || p.Rule.RuleID != wantID {
		t.Errorf("proposal %+v", p)
	}
	exc, err := db.GetRule(ctx, wantID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p.Rule, exc); diff != "" {
		t.Errorf("stored exception differs from the proposal (-proposal +stored):\n%s", diff)
	}
	if exc.Status != engine.StatusCandidate || exc.ExceptionOf != parent.RuleID || exc.Alpha != 5 ||
		!cmp.Equal(exc.Scope, engine.Scope{Environment: "work", ContextTags: []string{"migration"}}) {
		t.Errorf("exception rule %+v", exc)
	}
	if texts, _ := db.RuleTexts(ctx, wantID); len(texts) != 0 {
		t.Errorf("an exception proposal got texts to embed: %+v", texts)
	}
	// php reaches 3 next: it is proposed; migration never again.
	if r := counter(t, db, parent.RuleID, 5, "migration"); r.Exception != nil {
		t.Errorf("migration proposed twice: %+v", r.Exception)
	}
	if r := counter(t, db, parent.RuleID, 6, "php"); r.Exception == nil || r.Exception.Tag != "php" {
		t.Errorf("php not proposed: %+v", r.Exception)
	}

	before, _ := db.GetRule(ctx, parent.RuleID)
	gotParent, gotExc, err := memory.AcceptException(ctx, db, wantID, t0.Add(7*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	wantParent := before
	wantParent.Scope.ExcludeTags = []string{"migration"}
	if diff := cmp.Diff(wantParent, gotParent); diff != "" {
		t.Errorf("parent after accept (-want +got):\n%s", diff)
	}
	if gotExc.Status != engine.StatusActiveEligible {
		t.Errorf("exception after accept: %+v", gotExc)
	}
	if stored, _ := db.GetRule(ctx, parent.RuleID); !cmp.Equal(stored, gotParent) {
		t.Errorf("stored parent %+v, returned %+v", stored, gotParent)
	}
	for _, id := range []string{parent.RuleID, wantID} {
		h, _ := db.History(ctx, id, 0, 0)
		if last := h[len(h)-1]; last.EventType != engine.EventManualOverride {
			t.Errorf("%s: last event %+v, want manual_override", id, last)
		}
	}
	_, _, err = memory.AcceptException(ctx, db, wantID, t0)
	storetest.WantCode(t, err, engine.ECONFLICT) // not a candidate any more
	_, _, err = memory.AcceptException(ctx, db, parent.RuleID, t0)
	storetest.WantCode(t, err, engine.EINVALID) // not an exception proposal
	_, _, err = memory.AcceptException(ctx, db, "tool.none", t0)
	storetest.WantCode(t, err, engine.ENOTFOUND)
}

func testRejectException(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	parent, id := mustExceptionProposal(t, db)
	p0, _ := db.GetRule(ctx, parent.RuleID)
	e0, _ := db.GetRule(ctx, id)
	if err := memory.RejectException(ctx, db, id, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	p1, _ := db.GetRule(ctx, parent.RuleID)
	e1, _ := db.GetRule(ctx, id)
	e0.Status = engine.StatusArchived
	if diff := cmp.Diff([]engine.Rule{p0, e0}, []engine.Rule{p1, e1}); diff != "" {
		t.Errorf("reject did more than archive the proposal (-want +got):\n%s", diff)
	}
	n := storetest.MustCount(t, db)
	storetest.WantCode(t, memory.RejectException(ctx, db, id, t0), engine.ECONFLICT) // reviewed already
	if storetest.MustCount(t, db) != n {
		t.Errorf("second reject wrote")
	}
	// The rejected pair is never proposed again.
	if r := counter(t, db, parent.RuleID, 9, "migration"); r.Exception != nil {
		t.Errorf("rejected exception proposed again: %+v", r.Exception)
	}
	storetest.WantCode(t, memory.RejectException(ctx, db, parent.RuleID, t0), engine.EINVALID)
}

// TestExceptionStatusOnlyByReview: UpdateRule refuses to set the status of
// an exception proposal waiting for a decision (accepting it that way would
// leave the original rule without the exclude tag), and writes nothing; its
// other fields stay editable, and once accepted its status is a plain field.
func testExceptionStatusOnlyByReview(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	parent, id := mustExceptionProposal(t, db)
	p0, _ := db.GetRule(ctx, parent.RuleID)
	n := storetest.MustCount(t, db)
	for _, st := range []engine.Status{engine.StatusActiveEligible, engine.StatusArchived} {
		_, err := memory.UpdateRule(ctx, db, id, memory.RuleUpdate{Status: ptr(st), Topic: ptr("sed")}, t0)
		storetest.WantCode(t, err, engine.EINVALID)
		if err == nil || !strings.Contains(err.Error(), "lexsona rules accept "+id) || !strings.Contains(err.Error(), "POST /v1/rules/"+id+"/accept") {
			t.Errorf("status %s: %v, want the commands and routes that decide it", st, err)
		}
		if storetest.MustCount(t, db) != n {
			t.Errorf("status %s: the refused update wrote", st)
		}
	}
	if p1, _ := db.GetRule(ctx, parent.RuleID); !cmp.Equal(p0, p1) {
		t.Errorf("parent changed: %+v", p1)
	}
	if e, _ := db.GetRule(ctx, id); e.Status != engine.StatusCandidate || e.Topic != "" {
		t.Errorf("proposal changed: %+v", e)
	}
	if e, err := memory.UpdateRule(ctx, db, id, memory.RuleUpdate{Status: ptr(engine.StatusCandidate), Topic: ptr("sed")}, t0); err != nil || e.Topic != "sed" {
		t.Errorf("editing another field: %v %+v", err, e)
	}
	if _, _, err := memory.AcceptException(ctx, db, id, t0); err != nil {
		t.Fatal(err)
	}
	if e, err := memory.UpdateRule(ctx, db, id, memory.RuleUpdate{Status: ptr(engine.StatusArchived)}, t0); err != nil || e.Status != engine.StatusArchived {
		t.Errorf("archiving an accepted exception: %v %+v", err, e)
	}
}

// TestRejectCandidateArchivesException: rejecting an exception proposal
// through RejectCandidate archives it (it no longer waits for a decision),
// leaves the rule it was an exception to as it was, and the same exception is
// never proposed again.
func testRejectCandidateArchivesException(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	parent, id := mustExceptionProposal(t, db)
	p0, _ := db.GetRule(ctx, parent.RuleID)
	got, err := memory.RejectCandidate(ctx, db, id, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != engine.StatusArchived {
		t.Errorf("rejected exception proposal is %s, want archived", got.Status)
	}
	if stored, _ := db.GetRule(ctx, id); stored.Status != engine.StatusArchived {
		t.Errorf("stored rejected exception proposal is %s, want archived", stored.Status)
	}
	if p1, _ := db.GetRule(ctx, parent.RuleID); !cmp.Equal(p0, p1) {
		t.Errorf("reject changed the parent: %s", cmp.Diff(p0, p1))
	}
	cands, err := db.ListRules(ctx, store.RuleFilter{Status: engine.StatusCandidate})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cands {
		if r.RuleID == id {
			t.Errorf("rejected exception %s still listed among candidates", id)
		}
	}
	_, err = memory.RejectCandidate(ctx, db, id, t0)
	storetest.WantCode(t, err, engine.ECONFLICT)
	if r := counter(t, db, parent.RuleID, 9, "migration"); r.Exception != nil {
		t.Errorf("rejected exception proposed again: %+v", r.Exception)
	}
}

// mustExceptionProposal creates tool.no-sed and records three counterexamples
// tagged "migration" on it, which propose an exception; it returns the rule
// and the proposal's id.
func mustExceptionProposal(t *testing.T, db *store.DB) (parent engine.Rule, id string) {
	t.Helper()
	parent = storetest.MustCreate(t, db, "tool.no-sed", "tool_preference", engine.Scope{})
	var res memory.RecordResult
	for i := range 3 {
		res = counter(t, db, parent.RuleID, i, "migration")
	}
	if res.Exception == nil {
		t.Fatal("three counterexamples tagged migration proposed no exception")
	}
	return parent, res.Exception.Rule.RuleID
}

func testPendingConfirmations(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	in := engine.Pending{
		Text: "maybe not sed", Scope: engine.Scope{Project: "API"}, Polarity: engine.Counter, FrameID: "f1",
		AgentOutput: "sed -i", Candidates: []engine.Candidate{{RuleID: "tool.x", Score: 0.78}}, Model: "m@1", CreatedAt: t0,
	}
	var id int64
	err := db.Write(ctx, t0, func(tx *store.Tx) error {
		var err error
		id, err = tx.CreatePending(in)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.GetPending(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.ID, want.Status, want.Scope, want.Seen = id, engine.PendingOpen, engine.Scope{Project: "api"}, 1
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GetPending (-want +got):\n%s", diff)
	}
	if l, _ := db.ListPending(ctx, engine.PendingOpen, 0); len(l) != 1 || l[0].ID != id {
		t.Errorf("ListPending(pending) = %+v", l)
	}

	// Resolve and record in one transaction.
	err = db.Write(ctx, t0, func(tx *store.Tx) error {
		if err := tx.ResolvePending(id, engine.PendingAccepted, "tool.x", t0.Add(1)); err != nil {
			return err
		}
		_, _, err := memory.ApplyCorrection(tx, engine.Correction{RuleID: "tool.x", Polarity: got.Polarity, UserText: got.Text, At: t0.Add(1)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = db.GetPending(ctx, id)
	if got.Status != engine.PendingAccepted || got.RuleID != "tool.x" || got.ResolvedAt == nil || !got.ResolvedAt.Equal(t0.Add(1)) {
		t.Errorf("resolved %+v", got)
	}
	if l, _ := db.ListPending(ctx, engine.PendingOpen, 0); len(l) != 0 {
		t.Errorf("still pending: %+v", l)
	}
	if l, _ := db.ListPending(ctx, "", 0); len(l) != 1 {
		t.Errorf("ListPending(all) = %+v", l)
	}

	n := storetest.MustCount(t, db)
	for _, tc := range []struct {
		name string
		fn   func(tx *store.Tx) error
		code string
	}{
		{"resolve twice", func(tx *store.Tx) error { return tx.ResolvePending(id, engine.PendingRejected, "", t0) }, engine.ECONFLICT},
		{"resolve unknown", func(tx *store.Tx) error { return tx.ResolvePending(999, engine.PendingRejected, "", t0) }, engine.ENOTFOUND},
		{"resolve to pending", func(tx *store.Tx) error { return tx.ResolvePending(id, engine.PendingOpen, "", t0) }, engine.EINVALID},
		{"empty text", func(tx *store.Tx) error { _, err := tx.CreatePending(engine.Pending{Text: " "}); return err }, engine.EINVALID},
		{"bad polarity", func(tx *store.Tx) error {
			_, err := tx.CreatePending(engine.Pending{Text: "x", Polarity: 3})
			return err
		}, engine.EINVALID},
		{"bad scope", func(tx *store.Tx) error {
			_, err := tx.CreatePending(engine.Pending{Text: "x", Scope: engine.Scope{Environment: "a b"}})
			return err
		}, engine.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			storetest.WantCode(t, db.Write(ctx, t0, tc.fn), tc.code)
			if storetest.MustCount(t, db) != n {
				t.Error("wrote")
			}
		})
	}
	_, err = db.GetPending(ctx, 999)
	storetest.WantCode(t, err, engine.ENOTFOUND)
	_, err = db.ListPending(ctx, "maybe", 0)
	storetest.WantCode(t, err, engine.EINVALID)
	_, err = db.ListPending(ctx, "", store.MaxPendingLimit+1)
	storetest.WantCode(t, err, engine.EINVALID)
}
