package store

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
)

func TestPendingConfirmations(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	in := engine.Pending{
		Text: "maybe not sed", Scope: engine.Scope{Project: "API"}, Polarity: engine.Counter, FrameID: "f1",
		AgentOutput: "sed -i", Candidates: []engine.Candidate{{RuleID: "tool.x", Score: 0.78}}, Model: "m@1", CreatedAt: t0,
	}
	var id int64
	err := db.Write(ctx, func(tx *Tx) error {
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
	want.ID, want.Status, want.Scope = id, engine.PendingOpen, engine.Scope{Project: "api"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GetPending (-want +got):\n%s", diff)
	}
	if l, _ := db.ListPending(ctx, engine.PendingOpen, 0); len(l) != 1 || l[0].ID != id {
		t.Errorf("ListPending(pending) = %+v", l)
	}

	// Resolve and record in one transaction.
	err = db.Write(ctx, func(tx *Tx) error {
		if err := tx.ResolvePending(id, engine.PendingAccepted, "tool.x", t0.Add(1)); err != nil {
			return err
		}
		cfg, _ := tx.Config()
		_, err := tx.ApplyCorrection(engine.Correction{RuleID: "tool.x", Polarity: got.Polarity, UserText: got.Text, At: t0.Add(1)}, cfg)
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

	n := mustCount(t, db)
	for _, tc := range []struct {
		name string
		fn   func(tx *Tx) error
		code string
	}{
		{"resolve twice", func(tx *Tx) error { return tx.ResolvePending(id, engine.PendingRejected, "", t0) }, engine.ECONFLICT},
		{"resolve unknown", func(tx *Tx) error { return tx.ResolvePending(999, engine.PendingRejected, "", t0) }, engine.ENOTFOUND},
		{"resolve to pending", func(tx *Tx) error { return tx.ResolvePending(id, engine.PendingOpen, "", t0) }, engine.EINVALID},
		{"empty text", func(tx *Tx) error { _, err := tx.CreatePending(engine.Pending{Text: " "}); return err }, engine.EINVALID},
		{"bad polarity", func(tx *Tx) error { _, err := tx.CreatePending(engine.Pending{Text: "x", Polarity: 3}); return err }, engine.EINVALID},
		{"bad scope", func(tx *Tx) error {
			_, err := tx.CreatePending(engine.Pending{Text: "x", Scope: engine.Scope{Environment: "a b"}})
			return err
		}, engine.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantCode(t, db.Write(ctx, tc.fn), tc.code)
			if mustCount(t, db) != n {
				t.Error("wrote")
			}
		})
	}
	_, err = db.GetPending(ctx, 999)
	wantCode(t, err, engine.ENOTFOUND)
	_, err = db.ListPending(ctx, "maybe", 0)
	wantCode(t, err, engine.EINVALID)
	_, err = db.ListPending(ctx, "", MaxPendingLimit+1)
	wantCode(t, err, engine.EINVALID)
}
