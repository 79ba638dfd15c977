package store

import (
	"context"
	"errors"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

// Statements run without their context's cancellation (runner.sctx), but a
// context that is already done still stops every operation before it reads
// or writes anything.
func TestDoneContextStopsStatements(t *testing.T) {
	db := MustOpen(t)
	MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := mustCount(t, db)
	if _, err := db.GetRule(ctx, "tool.x"); !errors.Is(err, context.Canceled) {
		t.Errorf("GetRule: %v, want context.Canceled", err)
	}
	if _, err := db.Snapshot(ctx, engine.SnapshotRequest{Now: t0}); !errors.Is(err, context.Canceled) {
		t.Errorf("Snapshot: %v, want context.Canceled", err)
	}
	if _, _, err := db.Record(ctx, engine.Correction{RuleID: "tool.x", UserText: "x", Polarity: engine.Reinforce, At: t0}); !errors.Is(err, context.Canceled) {
		t.Errorf("Record: %v, want context.Canceled", err)
	}
	// Cancelled between two statements of one transaction: the second fails
	// and the transaction rolls back.
	ctx, cancel = context.WithCancel(context.Background())
	err := db.Write(ctx, func(tx *Tx) error {
		if _, err := tx.ApplyCorrection(engine.Correction{RuleID: "tool.x", UserText: "x", Polarity: engine.Reinforce, At: t0}, engine.DefaultConfig()); err != nil {
			return err
		}
		cancel()
		_, err := tx.GetRule("tool.x")
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Write cancelled midway: %v, want context.Canceled", err)
	}
	if after := mustCount(t, db); after != before {
		t.Errorf("counts %+v after the cancelled operations, want %+v", after, before)
	}
}
