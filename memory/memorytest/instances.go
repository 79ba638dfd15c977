package memorytest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

// Several instances of LexSona on one database: each handle below is what
// another process would open (reopen), with caches and a writer of its own.

// testInstancesReplayIdempotency: a key used through one instance is
// replayed by another, also when both receive the same request at once.
func testInstancesReplayIdempotency(t *testing.T, open storetest.Opener) {
	a := open(t)
	b := storetest.Reopen(t, a)
	ctx := context.Background()
	storetest.MustCreate(t, a, "tool.x", "tool_preference", engine.Scope{})

	c := engine.Correction{RuleID: "tool.x", Polarity: engine.Reinforce, UserText: "no sed", At: t0, IdempotencyKey: "req-1"}
	first, replayed, err := Record(ctx, a, c)
	if err != nil || replayed {
		t.Fatalf("Record on a: %v, replayed=%v", err, replayed)
	}
	retry := c
	retry.At = t0.Add(time.Minute)
	got, replayed, err := Record(ctx, b, retry)
	if err != nil || !replayed {
		t.Fatalf("retry on b: %v, replayed=%v; want a replay", err, replayed)
	}
	if diff := cmp.Diff(first, got); diff != "" {
		t.Errorf("b's replay (-a's answer +b's):\n%s", diff)
	}
	other := c
	other.UserText = "something else"
	_, _, err = Record(ctx, b, other)
	storetest.WantCode(t, err, engine.ECONFLICT)

	// The same new key sent to both instances by 16 clients at once: one
	// records it, every other answer is its replay.
	const clients = 16
	c2 := engine.Correction{RuleID: "tool.x", Polarity: engine.Counter, UserText: "sed is fine", At: t0, IdempotencyKey: "req-2"}
	results := make([]memory.RecordResult, clients)
	replays := make([]bool, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := a
			if i%2 == 1 {
				h = b
			}
			results[i], replays[i], errs[i] = Record(ctx, h, c2)
		}()
	}
	wg.Wait()
	recorded := 0
	for i := range clients {
		if errs[i] != nil {
			t.Fatalf("client %d: %v", i, errs[i])
		}
		if !replays[i] {
			recorded++
		}
		if diff := cmp.Diff(results[0], results[i]); diff != "" {
			t.Errorf("client %d got another answer (-client 0 +client %d):\n%s", i, i, diff)
		}
	}
	if recorded != 1 {
		t.Errorf("%d clients recorded the correction, want exactly 1 (the others replay it)", recorded)
	}
	r, err := b.GetRule(ctx, "tool.x")
	if err != nil {
		t.Fatal(err)
	}
	if r.Alpha != 3 || r.Beta != 6 {
		t.Errorf("alpha %v, beta %v after two keyed corrections and their replays; want 3, 6", r.Alpha, r.Beta)
	}
}

// testInstancesExactEvidence: corrections on the same rules through three
// instances at once lose no update; every rule's events, in id order, add
// exactly one observation each.
func testInstancesExactEvidence(t *testing.T, open storetest.Opener) {
	a := open(t)
	handles := []*store.DB{a, storetest.Reopen(t, a), storetest.Reopen(t, a)}
	ctx := context.Background()
	rules := []string{"tool.a", "tool.b", "tool.c"}
	for _, id := range rules {
		storetest.MustCreate(t, a, id, "tool_preference", engine.Scope{})
	}
	const workers, each = 12, 60
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := handles[w%len(handles)]
			for i := range each {
				p := engine.Reinforce
				if (7*w+i)%5 == 0 {
					p = engine.Counter
				}
				c := engine.Correction{RuleID: rules[(w+i)%len(rules)], Polarity: p, UserText: "again",
					At: t0.Add(time.Duration(i) * time.Second)}
				if _, _, err := Record(ctx, h, c); err != nil {
					errs <- fmt.Errorf("worker %d: %w", w, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := map[string][2]int{} // rule → reinforcements, counterexamples
	for w := range workers {
		for i := range each {
			n := want[rules[(w+i)%len(rules)]]
			if (7*w+i)%5 == 0 {
				n[1]++
			} else {
				n[0]++
			}
			want[rules[(w+i)%len(rules)]] = n
		}
	}
	for _, id := range rules {
		r, err := handles[2].GetRule(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		n := want[id]
		if r.Reinforcements != n[0] || r.CounterExamples != n[1] || r.Alpha != float64(2+n[0]) || r.Beta != float64(5+n[1]) {
			t.Errorf("%s: alpha %v beta %v (%d+, %d-); want alpha %d beta %d", id, r.Alpha, r.Beta,
				r.Reinforcements, r.CounterExamples, 2+n[0], 5+n[1])
		}
		hist, err := handles[1].History(ctx, id, 0, store.MaxHistoryLimit)
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != 1+n[0]+n[1] {
			t.Errorf("%s: %d events, want %d", id, len(hist), 1+n[0]+n[1])
		}
		for k := 1; k < len(hist); k++ {
			if got := hist[k].Alpha + hist[k].Beta; got != hist[k-1].Alpha+hist[k-1].Beta+1 {
				t.Fatalf("%s: event %d has alpha+beta %v after %v: an update was lost or events are out of commit order",
					id, hist[k].EventID, got, hist[k-1].Alpha+hist[k-1].Beta)
			}
		}
	}
}

// testInstancesSeeChanges: a rule added, edited or archived, or a config
// changed, through one instance is in the next snapshot of another whose
// rule cache was warm.
func testInstancesSeeChanges(t *testing.T, open storetest.Opener) {
	a := open(t)
	b := storetest.Reopen(t, a)
	ctx := context.Background()
	req := engine.SnapshotRequest{Now: t0}
	texts := func() map[string]string {
		t.Helper()
		s, err := memory.Snapshot(ctx, b, req)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range s.Rules {
			out[r.RuleID] = r.Text
		}
		return out
	}
	active := func(id string) engine.Rule {
		r := engine.NewRule(id, "tool_preference", engine.SeverityShould, "Text of "+id, engine.Scope{}, engine.DefaultConfig(), t0)
		r.Alpha, r.Reinforcements = 20, 18
		return r
	}
	if got := texts(); len(got) != 0 {
		t.Fatalf("empty store's snapshot: %v", got)
	}
	for _, step := range []struct {
		name string
		do   func() error
		want map[string]string
	}{
		{"add", func() error { _, err := storetest.CreateRule(a, active("tool.x")); return err },
			map[string]string{"tool.x": "Text of tool.x"}},
		{"edit", func() error {
			_, err := memory.UpdateRule(ctx, a, "tool.x", memory.RuleUpdate{Text: ptr("Use rg, not grep")}, t0)
			return err
		}, map[string]string{"tool.x": "Use rg, not grep"}},
		{"add another", func() error { _, err := storetest.CreateRule(a, active("tool.y")); return err },
			map[string]string{"tool.x": "Use rg, not grep", "tool.y": "Text of tool.y"}},
		{"archive", func() error { _, err := memory.ArchiveRule(ctx, a, "tool.x", t0); return err },
			map[string]string{"tool.y": "Text of tool.y"}},
		{"config", func() error {
			_, err := memory.SetConfig(ctx, a, t0, "category.tool_preference.c_min", "0.95")
			return err
		},
			map[string]string{}},
		{"config reset", func() error { _, err := memory.ResetConfig(ctx, a, t0, "category.tool_preference.c_min"); return err },
			map[string]string{"tool.y": "Text of tool.y"}},
	} {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if diff := cmp.Diff(step.want, texts()); diff != "" {
			t.Errorf("after %s through another instance (-want +got):\n%s", step.name, diff)
		}
	}
}
