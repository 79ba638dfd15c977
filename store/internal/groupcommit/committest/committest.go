// Package committest holds the group-commit scenarios every driver's write
// queue (store/internal/groupcommit) passes on its real database, and the
// helpers that queue writes behind a held one. Drivers' tests call them.
package committest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/groupcommit"
)

// t0 is the fixed clock of the scenarios.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// Hold makes the writer run a write function that waits until release is
// called; wait returns that write's error.
func Hold(tb testing.TB, db *store.DB) (release func(), wait func() error) {
	tb.Helper()
	started, gate := make(chan struct{}), make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- db.Write(context.Background(), t0, func(tx *store.Tx) error {
			close(started)
			<-gate
			return nil
		})
	}()
	<-started
	return func() { close(gate) }, func() error { return <-errc }
}

// WaitQueued blocks until n requests are queued for q's writer.
func WaitQueued(q *groupcommit.Queue, n int) {
	for q.Len() < n {
		runtime.Gosched()
	}
}

func rule(id string) store.RuleRow {
	return store.RuleRow{Rule: engine.NewRule(id, "tool_preference", engine.SeverityShould, "Text of "+id, engine.Scope{},
		engine.DefaultConfig(), t0)}
}

func mustInsert(tb testing.TB, d store.Driver, id string) {
	tb.Helper()
	if err := d.Write(context.Background(), func(dt store.DriverTx) error { return dt.InsertRule(rule(id), t0) }); err != nil {
		tb.Fatalf("insert %s: %v", id, err)
	}
}

// stored reports whether d holds the rule id.
func stored(tb testing.TB, d store.Driver, id string) bool {
	tb.Helper()
	ok, err := d.Reader(context.Background()).RuleExists(id)
	if err != nil {
		tb.Fatal(err)
	}
	return ok
}

// Group: writes queued while the writer is busy run in one transaction,
// committed once; one that fails (in Go or in the database: a duplicate
// key) or panics is rolled back alone, to its savepoint, and answered with
// its error; the others are written. db is a store over d, q d's queue.
func Group(t *testing.T, db *store.DB, d store.Driver, q *groupcommit.Queue) {
	ctx := context.Background()
	mustInsert(t, d, "tool.taken")
	release, waitFirst := Hold(t, db)
	commits0 := q.Commits()

	type outcome struct {
		err      error
		panicked any
	}
	cases := []struct {
		id   string
		fail string // "", "error", "database", "panic"
	}{
		{"tool.a", ""}, {"tool.b", "error"}, {"tool.c", ""}, {"tool.d", "database"}, {"tool.e", ""}, {"tool.f", "panic"}, {"tool.g", ""},
	}
	out := make([]outcome, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Go(func() {
			defer func() { out[i].panicked = recover() }()
			out[i].err = d.Write(ctx, func(dt store.DriverTx) error {
				if err := dt.InsertRule(rule(c.id), t0); err != nil {
					return err
				}
				switch c.fail {
				case "error":
					return engine.Errorf(engine.EINVALID, "refused %s", c.id)
				case "database":
					return dt.InsertRule(rule("tool.taken"), t0)
				case "panic":
					panic("boom " + c.id)
				}
				return nil
			})
		})
		WaitQueued(q, i+1) // queue them in order
	}
	release()
	wg.Wait()
	if err := waitFirst(); err != nil {
		t.Fatal(err)
	}
	if got := q.Commits() - commits0; got != 1 {
		t.Errorf("commits = %d, want 1 (the queued writes join the held write's group)", got)
	}
	for i, c := range cases {
		switch c.fail {
		case "":
			if out[i].err != nil || out[i].panicked != nil {
				t.Errorf("%s: err %v, panic %v; want success", c.id, out[i].err, out[i].panicked)
			}
			if !stored(t, d, c.id) {
				t.Errorf("%s was acknowledged but is not stored", c.id)
			}
		case "error":
			if engine.ErrorCode(out[i].err) != engine.EINVALID {
				t.Errorf("%s: err %v, want its own EINVALID", c.id, out[i].err)
			}
		case "database":
			if engine.ErrorCode(out[i].err) != engine.EINTERNAL {
				t.Errorf("%s: err %v, want the duplicate key's internal error", c.id, out[i].err)
			}
		case "panic":
			if p := fmt.Sprint(out[i].panicked); !strings.Contains(p, "boom "+c.id) {
				t.Errorf("%s: panic %q, want it raised again in the caller", c.id, p)
			}
		}
		if c.fail != "" && stored(t, d, c.id) {
			t.Errorf("%s failed but its rule is stored", c.id)
		}
	}
}

// FirstOfGroupFails: when the first write of a group fails in the
// database, it is rolled back and the ones queued behind it are written.
func FirstOfGroupFails(t *testing.T, db *store.DB, d store.Driver, q *groupcommit.Queue) {
	ctx := context.Background()
	mustInsert(t, d, "tool.taken")
	release, waitFirst := Hold(t, db)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, id := range []string{"tool.taken", "tool.good"} {
		wg.Go(func() {
			errs[i] = d.Write(ctx, func(dt store.DriverTx) error { return dt.InsertRule(rule(id), t0) })
		})
		WaitQueued(q, i+1)
	}
	release()
	wg.Wait()
	if err := waitFirst(); err != nil {
		t.Fatal(err)
	}
	if errs[0] == nil || errs[1] != nil {
		t.Fatalf("errs = %v, want [duplicate key, <nil>]", errs)
	}
	if !stored(t, d, "tool.good") {
		t.Error("tool.good is not stored")
	}
}

// CancelledWhileQueued: a write whose context ends while it waits in the
// queue is answered with the context's error and never runs; the writer
// goes on.
func CancelledWhileQueued(t *testing.T, db *store.DB, d store.Driver, q *groupcommit.Queue) {
	release, waitFirst := Hold(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	ran := false
	errc := make(chan error, 1)
	go func() {
		errc <- db.Write(ctx, t0, func(tx *store.Tx) error { ran = true; return nil })
	}()
	WaitQueued(q, 1)
	cancel()
	err := <-errc
	release()
	if err := waitFirst(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("err %v, ran %v; want context.Canceled and not run", err, ran)
	}
	mustInsert(t, d, "tool.after")
}

// AfterClose: Write on a closed store is an internal error saying the
// database is closed, and runs nothing.
func AfterClose(t *testing.T, closed *store.DB) {
	ran := false
	err := closed.Write(context.Background(), t0, func(*store.Tx) error { ran = true; return nil })
	if engine.ErrorCode(err) != engine.EINTERNAL || !strings.Contains(err.Error(), "database is closed") || ran {
		t.Fatalf("Write after Close: %v (ran %v), want an internal error saying the database is closed", err, ran)
	}
}
