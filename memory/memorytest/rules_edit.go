package memorytest

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

func testUpdateRule(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	for i := 0; i < 3; i++ {
		MustRecord(t, db, engine.Correction{RuleID: "tool.x"})
	}
	before, _ := db.GetRule(ctx, "tool.x")
	got, err := memory.UpdateRule(ctx, db, "tool.x", memory.RuleUpdate{
		Text: ptr("Use the editor's replace tool"), Severity: ptr(engine.SeverityMust),
		Scope: &engine.Scope{Project: "API"}, Topic: ptr("editing"),
	}, t0.Add(1))
	if err != nil {
		t.Fatal(err)
	}
	want := before
	want.Text, want.Severity, want.Scope, want.Topic = "Use the editor's replace tool", engine.SeverityMust, engine.Scope{Project: "api"}, "editing"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("UpdateRule (-want +got):\n%s", diff)
	}
	hist, _ := db.History(ctx, "tool.x", 0, 0)
	last := hist[len(hist)-1]
	if last.EventType != engine.EventManualOverride || last.Alpha != 5 ||
		!strings.Contains(last.Detail, `text: "Text of tool.x" → "Use the editor's replace tool"`) ||
		!strings.Contains(last.Detail, `severity: "should" → "must"`) || !strings.Contains(last.Detail, "topic") {
		t.Errorf("last event %+v does not describe the change", last)
	}
	texts, _ := db.RuleTexts(ctx, "tool.x")
	if len(texts) != 1 || texts[0].Text != "Use the editor's replace tool" {
		t.Errorf("texts %+v, want only the new template", texts)
	}

	// No change: no event. Bad input: nothing written.
	n := storetest.MustCount(t, db)
	if _, err := memory.UpdateRule(ctx, db, "tool.x", memory.RuleUpdate{Topic: ptr("editing")}, t0); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		u    memory.RuleUpdate
		code string
	}{
		{memory.RuleUpdate{}, engine.EINVALID},
		{memory.RuleUpdate{Severity: ptr(engine.Severity("loud"))}, engine.EINVALID},
		{memory.RuleUpdate{Text: ptr("")}, engine.EINVALID},
		{memory.RuleUpdate{Scope: &engine.Scope{ContextTags: []string{"a b"}}}, engine.EINVALID},
		{memory.RuleUpdate{Status: ptr(engine.Status("gone"))}, engine.EINVALID},
		{memory.RuleUpdate{RenameTo: ptr("Bad..id")}, engine.EINVALID},
		{memory.RuleUpdate{Text: ptr("fine"), Category: ptr("Not OK")}, engine.EINVALID},
	} {
		_, err := memory.UpdateRule(ctx, db, "tool.x", tc.u, t0)
		storetest.WantCode(t, err, tc.code)
	}
	_, err = memory.UpdateRule(ctx, db, "tool.nope", memory.RuleUpdate{Topic: ptr("x")}, t0)
	storetest.WantCode(t, err, engine.ENOTFOUND)
	if diff := cmp.Diff(n, storetest.MustCount(t, db)); diff != "" {
		t.Errorf("rejected updates wrote (-before +after):\n%s", diff)
	}
}

func testRenameMovesEverything(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	storetest.MustCreate(t, db, "tool.old", "tool_preference", engine.Scope{})
	storetest.MustCreate(t, db, "tool.other", "tool_preference", engine.Scope{})
	MustRecord(t, db, engine.Correction{RuleID: "tool.old", Polarity: engine.Counter, Scope: engine.Scope{ContextTags: []string{"ci"}}})
	MustRecord(t, db, engine.Correction{RuleID: "tool.old"})
	texts, _ := db.MissingEmbeddings(ctx, "m@1")
	if err := db.PutEmbeddings(ctx, t0, "m@1", texts, [][]float32{{1, 0}, {0, 1}}); err != nil {
		t.Fatal(err)
	}
	oldHist, _ := db.History(ctx, "tool.old", 0, 0)

	_, err := memory.UpdateRule(ctx, db, "tool.old", memory.RuleUpdate{RenameTo: ptr("tool.other")}, t0)
	storetest.WantCode(t, err, engine.ECONFLICT)
	got, err := memory.UpdateRule(ctx, db, "tool.old", memory.RuleUpdate{RenameTo: ptr("tool.new")}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got.RuleID != "tool.new" || got.Alpha != 3 || got.Beta != 6 {
		t.Errorf("renamed rule %+v", got)
	}
	_, err = db.GetRule(ctx, "tool.old")
	storetest.WantCode(t, err, engine.ENOTFOUND)
	hist, _ := db.History(ctx, "tool.new", 0, 0)
	if len(hist) != len(oldHist)+1 {
		t.Fatalf("history has %d events, want %d", len(hist), len(oldHist)+1)
	}
	for i, e := range oldHist {
		e.RuleID = "tool.new"
		if diff := cmp.Diff(e, hist[i]); diff != "" {
			t.Errorf("event %d changed in the move (-want +got):\n%s", i, diff)
		}
	}
	embs, _ := db.LoadEmbeddings(ctx, "m@1")
	if len(embs) != 2 || embs[0].RuleID != "tool.new" || embs[1].RuleID != "tool.other" {
		t.Errorf("embeddings after rename: %+v", embs)
	}
	// The one ci counterexample counts for tool.new: the third makes the
	// exception proposal (exception_min_count 3), not the second.
	ci := engine.Correction{RuleID: "tool.new", Polarity: engine.Counter, Scope: engine.Scope{ContextTags: []string{"ci"}}}
	if res := MustRecord(t, db, ci); res.Exception != nil {
		t.Errorf("a second ci counterexample proposed %+v: the counts did not follow the rename", res.Exception)
	}
	if res := MustRecord(t, db, ci); res.Exception == nil || res.Exception.Count != 3 {
		t.Errorf("third ci counterexample: proposal %+v, want one counting 3: the counts did not follow the rename", res.Exception)
	}
}

func testArchiveRule(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	r, err := memory.ArchiveRule(ctx, db, "tool.x", t0)
	if err != nil || r.Status != engine.StatusArchived {
		t.Fatalf("ArchiveRule = %+v, %v", r, err)
	}
	n := storetest.MustCount(t, db)
	if _, err := memory.ArchiveRule(ctx, db, "tool.x", t0); err != nil {
		t.Fatal(err)
	}
	if storetest.MustCount(t, db) != n {
		t.Error("archiving an archived rule wrote something")
	}
	_, _, err = Record(ctx, db, engine.Correction{RuleID: "tool.x", Polarity: 1, UserText: "x", At: t0})
	storetest.WantCode(t, err, engine.ECONFLICT)
	r, err = memory.UpdateRule(ctx, db, "tool.x", memory.RuleUpdate{Status: ptr(engine.StatusActiveEligible)}, t0)
	if err != nil || r.Status != engine.StatusActiveEligible {
		t.Fatalf("restore = %+v, %v", r, err)
	}
}

func testMergeRule(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	cfg := engine.DefaultConfig()
	into := storetest.MustCreate(t, db, "tool.no-sed", "tool_preference", engine.Scope{})
	MustRecord(t, db, engine.Correction{RuleID: into.RuleID, At: t0.Add(1)})
	cand := engine.NewCandidateRule("stop using sed on files", "", engine.Scope{}, cfg, t0.Add(2))
	err := db.Write(ctx, t0, func(tx *store.Tx) error {
		_, err := tx.InsertRule(cand, engine.Event{UserText: "stop using sed on files"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	MustRecord(t, db, engine.Correction{RuleID: cand.RuleID, At: t0.Add(3)})
	MustRecord(t, db, engine.Correction{RuleID: cand.RuleID, Polarity: engine.Counter, At: t0.Add(4), Scope: engine.Scope{ContextTags: []string{"ci"}}})
	MustRecord(t, db, engine.Correction{RuleID: into.RuleID, Polarity: engine.Counter, At: t0.Add(1), Scope: engine.Scope{ContextTags: []string{"ci"}}})
	candHist, _ := db.History(ctx, cand.RuleID, 0, 0)

	_, err = memory.MergeRule(ctx, db, into.RuleID, cand.RuleID, t0)
	storetest.WantCode(t, err, engine.EINVALID) // into is not a candidate
	got, err := memory.MergeRule(ctx, db, cand.RuleID, into.RuleID, t0.Add(5))
	if err != nil {
		t.Fatal(err)
	}
	// into: prior 2/5 + 1 reinforcement, 1 counterexample; candidate: 2 reinforcements, 1 counterexample.
	want := into
	want.Alpha, want.Beta, want.Reinforcements, want.CounterExamples = 5, 7, 3, 2
	want.LastCorrection = t0.Add(4)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged rule (-want +got):\n%s", diff)
	}
	_, err = db.GetRule(ctx, cand.RuleID)
	storetest.WantCode(t, err, engine.ENOTFOUND)
	hist, _ := db.History(ctx, into.RuleID, 0, 0)
	var moved []engine.Event
	for _, e := range hist {
		if e.UserText == "stop using sed on files" || e.At.After(t0.Add(2)) && e.EventType != engine.EventManualOverride {
			moved = append(moved, e)
		}
	}
	for i := range candHist {
		candHist[i].RuleID = into.RuleID
	}
	if diff := cmp.Diff(candHist, moved, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("moved events (-candidate's +into's):\n%s", diff)
	}
	if last := hist[len(hist)-1]; last.EventType != engine.EventManualOverride || !strings.Contains(last.Detail, cand.RuleID) {
		t.Errorf("last event %+v, want a manual_override naming the candidate", last)
	}
	texts, _ := db.RuleTexts(ctx, into.RuleID)
	if len(texts) != 2 || texts[0].Kind != store.KindCorrection || texts[0].Text != "stop using sed on files" {
		t.Errorf("texts %+v, want the template and the candidate's text as a correction", texts)
	}
	// into counts two ci counterexamples (its own and the candidate's): a
	// third makes the exception proposal (exception_min_count 3).
	res := MustRecord(t, db, engine.Correction{RuleID: into.RuleID, Polarity: engine.Counter, At: t0.Add(6), Scope: engine.Scope{ContextTags: []string{"ci"}}})
	if res.Exception == nil || res.Exception.Count != 3 {
		t.Errorf("counterexample tag counts of into: proposal %+v after one more ci counterexample, want one counting 3", res.Exception)
	}
}
