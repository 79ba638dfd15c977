package sqlite

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// holdWriter makes the writer run a write function that waits until release
// is called; wait returns that write's error.
func holdWriter(t *testing.T, db *store.DB) (release func(), wait func() error) {
	t.Helper()
	started, gate := make(chan struct{}), make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- db.Write(context.Background(), func(tx *store.Tx) error {
			close(started)
			<-gate
			return nil
		})
	}()
	<-started
	return func() { close(gate) }, func() error { return <-errc }
}

// waitQueued blocks until n requests are queued for the writer.
func waitQueued(d *Driver, n int) {
	for len(d.writer.queue) < n {
		runtime.Gosched()
	}
}

// TestWriteGroupCommit: writes queued while the writer is busy are run in
// one transaction and committed once; one that fails or panics is rolled
// back alone (its savepoint) and answered with its error, the others are
// written.
func TestWriteGroupCommit(t *testing.T) {
	ctx := context.Background()
	db, d := mustOpen(t)
	release, waitFirst := holdWriter(t, db)
	commits0 := d.commits.Load()

	type outcome struct {
		err      error
		panicked any
	}
	cases := []struct {
		id   string
		fail string // "", "error", "panic"
	}{
		{"tool.a", ""}, {"tool.b", "error"}, {"tool.c", ""}, {"tool.d", "panic"}, {"tool.e", ""},
	}
	out := make([]outcome, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Go(func() {
			defer func() { out[i].panicked = recover() }()
			out[i].err = db.Write(ctx, func(tx *store.Tx) error {
				r := engine.NewRule(c.id, "tool_preference", engine.SeverityShould, "Text of "+c.id, engine.Scope{}, engine.DefaultConfig(), t0)
				if _, err := tx.CreateRule(r); err != nil {
					return err
				}
				switch c.fail {
				case "error":
					return engine.Errorf(engine.EINVALID, "refused %s", c.id)
				case "panic":
					panic("boom " + c.id)
				}
				return nil
			})
		})
		waitQueued(d, i+1) // queue them in order
	}
	release()
	wg.Wait()
	if err := waitFirst(); err != nil {
		t.Fatal(err)
	}
	if got := d.commits.Load() - commits0; got != 1 {
		t.Errorf("commits = %d, want 1 (the five queued join the held write's group)", got)
	}
	for i, c := range cases {
		_, err := db.GetRule(ctx, c.id)
		switch c.fail {
		case "":
			if out[i].err != nil || out[i].panicked != nil {
				t.Errorf("%s: err %v, panic %v; want success", c.id, out[i].err, out[i].panicked)
			}
			if err != nil {
				t.Errorf("%s was acknowledged but is not stored: %v", c.id, err)
			}
		case "error":
			if engine.ErrorCode(out[i].err) != engine.EINVALID {
				t.Errorf("%s: err %v, want its own EINVALID", c.id, out[i].err)
			}
		case "panic":
			if p := fmt.Sprint(out[i].panicked); !strings.Contains(p, "boom "+c.id) {
				t.Errorf("%s: panic %q, want it raised again in the caller", c.id, p)
			}
		}
		if c.fail != "" && engine.ErrorCode(err) != engine.ENOTFOUND {
			t.Errorf("%s failed but its rule is stored (GetRule err %v)", c.id, err)
		}
	}
}

// TestWriteFirstOfGroupFails: when the first write of a group fails, it is
// rolled back and the ones queued behind it are still written.
func TestWriteFirstOfGroupFails(t *testing.T) {
	ctx := context.Background()
	db, d := mustOpen(t)
	release, waitFirst := holdWriter(t, db)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, id := range []string{"tool.bad", "tool.good"} {
		wg.Go(func() {
			errs[i] = db.Write(ctx, func(tx *store.Tx) error {
				r := engine.NewRule(id, "tool_preference", engine.SeverityShould, "Text", engine.Scope{}, engine.DefaultConfig(), t0)
				if _, err := tx.CreateRule(r); err != nil {
					return err
				}
				if id == "tool.bad" {
					return errors.New("no")
				}
				return nil
			})
		})
		waitQueued(d, i+1)
	}
	release()
	wg.Wait()
	if err := waitFirst(); err != nil {
		t.Fatal(err)
	}
	if errs[0] == nil || errs[1] != nil {
		t.Fatalf("errs = %v, want [no <nil>]", errs)
	}
	if _, err := db.GetRule(ctx, "tool.bad"); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Errorf("tool.bad: %v, want not found", err)
	}
	if _, err := db.GetRule(ctx, "tool.good"); err != nil {
		t.Errorf("tool.good: %v", err)
	}
}

// TestWriteCancelledWhileQueued: a write whose context ends while it waits
// in the queue is answered with the context's error and never runs.
func TestWriteCancelledWhileQueued(t *testing.T) {
	db, d := mustOpen(t)
	release, waitFirst := holdWriter(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	ran := false
	errc := make(chan error, 1)
	go func() {
		errc <- db.Write(ctx, func(tx *store.Tx) error { ran = true; return nil })
	}()
	waitQueued(d, 1)
	cancel()
	err := <-errc
	release()
	if err := waitFirst(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("err %v, ran %v; want context.Canceled and not run", err, ran)
	}
	// The writer goes on.
	mustCreate(t, db, "tool.after", "tool_preference", engine.Scope{})
}

// TestWriteAfterClose: Write on a closed database is an internal error
// saying so, and runs nothing.
func TestWriteAfterClose(t *testing.T) {
	db, _, err := openPath(context.Background(), t.TempDir()+"/x.db")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	ran := false
	err = db.Write(context.Background(), func(*store.Tx) error { ran = true; return nil })
	if engine.ErrorCode(err) != engine.EINTERNAL || !strings.Contains(err.Error(), "database is closed") || ran {
		t.Fatalf("Write after Close: %v (ran %v), want an internal error saying the database is closed", err, ran)
	}
}
