package memorytest

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

func testRecordMath(t *testing.T, open storetest.Opener) {
	db := open(t)
	storetest.MustCreate(t, db, "style.x", "general", engine.Scope{}) // default thresholds: n_min 5, c_min 0.7
	for k := 1; k <= 12; k++ {
		res := MustRecord(t, db, engine.Correction{RuleID: "style.x", At: t0.Add(time.Duration(k) * time.Minute)})
		wantConf := (2 + float64(k)) / (7 + float64(k))
		want := memory.RecordResult{EventID: res.EventID, RuleID: "style.x", EventType: engine.EventReinforcement,
			Alpha: 2 + float64(k), Beta: 5, Confidence: wantConf, Active: k >= 10}
		if diff := cmp.Diff(want, res, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
			t.Errorf("k=%d (-want +got):\n%s", k, diff)
		}
	}
	r, _ := db.GetRule(context.Background(), "style.x")
	if r.Reinforcements != 12 || !r.LastCorrection.Equal(t0.Add(12*time.Minute)) {
		t.Errorf("rule %+v", r)
	}
	if got := math.Round(engine.ConfidenceBase(12, 5)*1e4) / 1e4; got != 0.7059 {
		t.Errorf("k=10 confidence %v, want 0.7059", got)
	}
	res := MustRecord(t, db, engine.Correction{RuleID: "style.x", Polarity: engine.Counter, At: t0.Add(time.Hour)})
	if res.EventType != engine.EventCounterexample || res.Alpha != 14 || res.Beta != 6 {
		t.Errorf("counterexample: %+v", res)
	}
}

func testRecordStoresTheEvent(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	score := 0.91
	c := engine.Correction{
		RuleID: "tool.x", Polarity: engine.Reinforce, UserText: "don't use sed", AgentOutput: "sed -i s/a/b/ f",
		FrameID: "frame-1", Scope: engine.Scope{Project: "API", ContextTags: []string{"cli"}}, At: t0.Add(time.Second),
		Decision: "auto_match", Score: &score, Candidates: []engine.Candidate{{RuleID: "tool.x", Score: 0.91}}, Model: "m@1",
	}
	res, replayed, err := Record(ctx, db, c)
	if err != nil || replayed {
		t.Fatalf("Record = %v, %v", replayed, err)
	}
	hist, _ := db.History(ctx, "tool.x", 1, 10)
	want := []engine.Event{{
		EventID: res.EventID, RuleID: "tool.x", EventType: engine.EventReinforcement, UserText: c.UserText,
		AgentOutput: c.AgentOutput, FrameID: "frame-1", Scope: engine.Scope{Project: "api", ContextTags: []string{"cli"}},
		Decision: "auto_match", Score: &score, Candidates: c.Candidates, Model: "m@1", Polarity: engine.Reinforce, Alpha: 3, Beta: 5, At: c.At,
	}}
	if diff := cmp.Diff(want, hist); diff != "" {
		t.Errorf("event (-want +got):\n%s", diff)
	}
}

// TestRecordConcurrent: many clients correcting one rule at once lose no update.
func testRecordConcurrent(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	storetest.MustCreate(t, db, "tool.hot", "tool_preference", engine.Scope{})
	const workers, each = 16, 200
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, _, err := Record(ctx, db, engine.Correction{RuleID: "tool.hot", Polarity: engine.Reinforce,
					UserText: "again", At: t0.Add(time.Duration(i) * time.Second)}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Record: %v", err)
	}
	r, _ := db.GetRule(ctx, "tool.hot")
	if r.Alpha != 2+workers*each || r.Reinforcements != workers*each {
		t.Errorf("alpha %v, reinforcements %d; want %d, %d", r.Alpha, r.Reinforcements, 2+workers*each, workers*each)
	}
	hist, err := db.History(ctx, "tool.hot", 0, store.MaxHistoryLimit)
	if err != nil {
		t.Fatal(err)
	}
	n, maxAlpha := 0, 0.0
	for _, e := range hist {
		if e.EventType == engine.EventReinforcement {
			n++
		}
		maxAlpha = max(maxAlpha, e.Alpha)
	}
	if n != workers*each {
		t.Errorf("%d reinforcement events, want %d", n, workers*each)
	}
	if maxAlpha != 3202 {
		t.Errorf("last event alpha %v, want 3202", maxAlpha)
	}
}

func testRecordIdempotency(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	c := engine.Correction{RuleID: "tool.x", Polarity: engine.Reinforce, UserText: "no sed", At: t0, IdempotencyKey: "req-1"}
	first, replayed, err := Record(ctx, db, c)
	if err != nil || replayed {
		t.Fatalf("first Record: %v, replayed=%v", err, replayed)
	}
	before := storetest.MustCount(t, db)

	retry := c
	retry.At = t0.Add(time.Minute) // a client retrying later, with the same content
	got, replayed, err := Record(ctx, db, retry)
	if err != nil || !replayed {
		t.Fatalf("retry: %v, replayed=%v; want a replay", err, replayed)
	}
	if diff := cmp.Diff(first, got); diff != "" {
		t.Errorf("replayed result (-first +replay):\n%s", diff)
	}
	if diff := cmp.Diff(before, storetest.MustCount(t, db)); diff != "" {
		t.Errorf("replay wrote (-before +after):\n%s", diff)
	}

	other := c
	other.UserText = "something else"
	_, _, err = Record(ctx, db, other)
	storetest.WantCode(t, err, engine.ECONFLICT)
	if !strings.Contains(err.Error(), "req-1") {
		t.Errorf("%v does not name the key", err)
	}
	if diff := cmp.Diff(before, storetest.MustCount(t, db)); diff != "" {
		t.Errorf("conflict wrote (-before +after):\n%s", diff)
	}
	r, _ := db.GetRule(ctx, "tool.x")
	if r.Alpha != 3 {
		t.Errorf("alpha %v after one correction and its replays, want 3", r.Alpha)
	}
}

func testRecordBadInputWritesNothing(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	storetest.MustCreate(t, db, "tool.gone", "tool_preference", engine.Scope{})
	if _, err := memory.ArchiveRule(ctx, db, "tool.gone", t0); err != nil {
		t.Fatal(err)
	}
	good := engine.Correction{RuleID: "tool.x", Polarity: engine.Reinforce, UserText: "no", At: t0}
	before := storetest.MustCount(t, db)
	for _, tc := range []struct {
		name string
		edit func(c *engine.Correction)
		code string
		msg  string
	}{
		{"unknown rule", func(c *engine.Correction) { c.RuleID = "tool.nope" }, engine.ENOTFOUND, `rule "tool.nope" not found`},
		{"bad rule id", func(c *engine.Correction) { c.RuleID = "Tool X" }, engine.EINVALID, "malformed rule id"},
		{"no rule id", func(c *engine.Correction) { c.RuleID = "" }, engine.EINVALID, "rule id is empty"},
		{"empty text", func(c *engine.Correction) { c.UserText = " \n" }, engine.EINVALID, "correction text is empty"},
		{"invalid scope tag", func(c *engine.Correction) { c.Scope.ContextTags = []string{"bad tag"} }, engine.EINVALID, "context tag"},
		{"no time", func(c *engine.Correction) { c.At = time.Time{} }, engine.EINVALID, "time"},
		{"bad polarity", func(c *engine.Correction) { c.Polarity = 2 }, engine.EINVALID, "polarity"},
		{"archived rule", func(c *engine.Correction) { c.RuleID = "tool.gone" }, engine.ECONFLICT, "archived"},
		{"huge text", func(c *engine.Correction) { c.UserText = strings.Repeat("x", engine.MaxUserTextLength+1) }, engine.ETOOLARGE, "correction text"},
		{"NaN score", func(c *engine.Correction) { c.Score = ptr(math.NaN()) }, engine.EINVALID, "score"},
		{"unknown rule with key", func(c *engine.Correction) { c.RuleID, c.IdempotencyKey = "tool.nope", "k" }, engine.ENOTFOUND, "tool.nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			tc.edit(&c)
			_, _, err := Record(ctx, db, c)
			storetest.WantCode(t, err, tc.code)
			if !strings.Contains(engine.ErrorMessage(err), tc.msg) {
				t.Errorf("message %q does not say %q", engine.ErrorMessage(err), tc.msg)
			}
			if diff := cmp.Diff(before, storetest.MustCount(t, db)); diff != "" {
				t.Errorf("wrote (-before +after):\n%s", diff)
			}
		})
	}
}

func testHistoryPaging(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	storetest.MustCreate(t, db, "tool.y", "tool_preference", engine.Scope{})
	for i := 0; i < 249; i++ {
		MustRecord(t, db, engine.Correction{RuleID: "tool.x", At: t0.Add(time.Duration(i) * time.Second)})
		if i%50 == 0 {
			MustRecord(t, db, engine.Correction{RuleID: "tool.y"})
		}
	}
	var all []engine.Event
	after := int64(0)
	for page := 0; ; page++ {
		evs, err := db.History(ctx, "tool.x", after, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 {
			break
		}
		if len(evs) > store.DefaultHistoryLimit {
			t.Fatalf("page of %d events", len(evs))
		}
		all = append(all, evs...)
		after = evs[len(evs)-1].EventID
	}
	if len(all) != 250 {
		t.Fatalf("%d events, want 250", len(all))
	}
	for i, e := range all {
		if e.RuleID != "tool.x" || (i > 0 && e.EventID <= all[i-1].EventID) || (i > 0 && e.Alpha != float64(2+i)) {
			t.Fatalf("event %d: %+v", i, e)
		}
	}
	for _, tc := range []struct {
		id          string
		after       int64
		limit, want int
		code        string
	}{
		{"tool.x", 0, 10, 10, ""},
		{"tool.x", 0, store.MaxHistoryLimit, 250, ""},
		{"tool.x", 0, store.MaxHistoryLimit + 1, 0, engine.EINVALID},
		{"tool.x", 0, -1, 0, engine.EINVALID},
		{"tool.x", -5, 10, 0, engine.EINVALID},
		{"tool.none", 0, 10, 0, engine.ENOTFOUND},
		{"BAD", 0, 10, 0, engine.EINVALID},
	} {
		evs, err := db.History(ctx, tc.id, tc.after, tc.limit)
		if tc.code != "" {
			storetest.WantCode(t, err, tc.code)
			continue
		}
		if err != nil || len(evs) != tc.want {
			t.Errorf("History(%s, %d, %d) = %d events, %v; want %d", tc.id, tc.after, tc.limit, len(evs), err, tc.want)
		}
	}
}

// Statements run without their context's cancellation (runner.sctx), but a
// context that is already done still stops every operation before it reads
// or writes anything.
func testDoneContextStopsStatements(t *testing.T, open storetest.Opener) {
	db := open(t)
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := storetest.MustCount(t, db)
	if _, err := db.GetRule(ctx, "tool.x"); !errors.Is(err, context.Canceled) {
		t.Errorf("GetRule: %v, want context.Canceled", err)
	}
	if _, err := memory.Snapshot(ctx, db, engine.SnapshotRequest{Now: t0}); !errors.Is(err, context.Canceled) {
		t.Errorf("Snapshot: %v, want context.Canceled", err)
	}
	if _, _, err := Record(ctx, db, engine.Correction{RuleID: "tool.x", UserText: "x", Polarity: engine.Reinforce, At: t0}); !errors.Is(err, context.Canceled) {
		t.Errorf("Record: %v, want context.Canceled", err)
	}
	// Cancelled between two statements of one transaction: the second fails
	// and the transaction rolls back.
	ctx, cancel = context.WithCancel(context.Background())
	err := db.Write(ctx, t0, func(tx *store.Tx) error {
		if _, _, err := memory.ApplyCorrection(tx, engine.Correction{RuleID: "tool.x", UserText: "x", Polarity: engine.Reinforce, At: t0}); err != nil {
			return err
		}
		cancel()
		_, err := tx.GetRule("tool.x")
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Write cancelled midway: %v, want context.Canceled", err)
	}
	if after := storetest.MustCount(t, db); after != before {
		t.Errorf("counts %+v after the cancelled operations, want %+v", after, before)
	}
}
