package memorytest

import (
	"context"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

// testRetract: a retracted event's evidence leaves its rule, the event
// stays in the history marked with its retraction, the learned-events
// query lists it so, a second retraction conflicts, and the capture log
// keeps its newest entries and counts a session's.
func testRetract(t *testing.T, open storetest.Opener) {
	ctx := context.Background()
	db := open(t)
	storetest.MustCreate(t, db, "tool.x", "general", engine.Scope{})
	first, _, err := Record(ctx, db, engine.Correction{RuleID: "tool.x", Polarity: engine.Reinforce, UserText: "first", At: t0})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Record(ctx, db, engine.Correction{RuleID: "tool.x", Polarity: engine.Counter, UserText: "second", At: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	out, err := memory.RetractEvent(ctx, db, first.EventID, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	r, err := db.GetRule(ctx, "tool.x")
	if err != nil {
		t.Fatal(err)
	}
	if r.Alpha != 2 || r.Beta != 6 || r.Reinforcements != 0 || r.CounterExamples != 1 || !r.LastCorrection.Equal(t0.Add(time.Minute)) {
		t.Errorf("after the retraction: α %v β %v n %d/%d last %v", r.Alpha, r.Beta, r.Reinforcements, r.CounterExamples, r.LastCorrection)
	}
	evs, err := db.EventsSince(ctx, t0.Add(-time.Hour), 10)
	if err != nil {
		t.Fatal(err)
	}
	var seen bool
	for _, e := range evs {
		if e.EventID == first.EventID {
			seen = e.RetractedBy == out.RetractionID
		}
	}
	if !seen || len(evs) != 2 {
		t.Errorf("events since: %+v, want 2 with event %d retracted by %d", evs, first.EventID, out.RetractionID)
	}
	if _, err := memory.RetractEvent(ctx, db, first.EventID, t0.Add(2*time.Hour)); engine.ErrorCode(err) != engine.ECONFLICT {
		t.Errorf("second retraction: %v, want conflict", err)
	}
	for i := range 5 {
		err := db.Write(ctx, t0, func(tx *store.Tx) error {
			return tx.LogCapture(store.CaptureEntry{At: t0.Add(time.Duration(i) * time.Second), FrameID: "s-1", Action: "ignored", Excerpt: "x"}, 3)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	caps, err := db.CapturesSince(ctx, t0.Add(-time.Hour), 10)
	if err != nil || len(caps) != 3 || !caps[0].At.Equal(t0.Add(4*time.Second)) {
		t.Errorf("capture log %+v %v, want the newest 3, newest first", caps, err)
	}
	var n int
	if err := db.Write(ctx, t0, func(tx *store.Tx) (err error) { n, err = tx.CountCaptures("s-1"); return err }); err != nil || n != 3 {
		t.Errorf("CountCaptures = %d, %v; want 3", n, err)
	}
}
