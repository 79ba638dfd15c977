package storetest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// testEventTypes: AppendEvent takes the promotion and violation events
// beside the engine's, and refuses an unknown type.
func testEventTypes(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	for _, et := range []engine.EventType{"promotion", "violation"} {
		err := db.Write(ctx, T0, func(tx *store.Tx) error {
			_, err := tx.AppendEvent(engine.Event{RuleID: "tool.x", EventType: et, Detail: string(et), At: t0})
			return err
		})
		if err != nil {
			t.Fatalf("AppendEvent(%s): %v", et, err)
		}
	}
	err := db.Write(ctx, T0, func(tx *store.Tx) error {
		_, err := tx.AppendEvent(engine.Event{RuleID: "tool.x", EventType: "celebration", At: t0})
		return err
	})
	WantCode(t, err, engine.EINVALID)
	hist, _ := db.History(ctx, "tool.x", 0, 0)
	var types []engine.EventType
	for _, e := range hist {
		types = append(types, e.EventType)
		if e.Polarity != 0 || e.Alpha != 2 || e.Beta != 5 {
			t.Errorf("event %+v: want polarity 0 and the rule's alpha/beta", e)
		}
	}
	if diff := cmp.Diff([]engine.EventType{engine.EventCreation, "promotion", "violation"}, types); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
}
