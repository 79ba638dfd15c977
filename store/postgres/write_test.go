package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// TestWriteGroupCommit: writes queued while the writer is busy run in one
// transaction, committed once; one that fails (in Go or in the database)
// or panics is rolled back alone, to its savepoint, and answered with its
// error; the others are written.
func TestWriteGroupCommit(t *testing.T) {
	ctx := context.Background()
	db, d, _ := mustOpen(t)
	mustCreate(t, db, "tool.taken")
	release, waitFirst := holdWriter(t, db)
	commits0 := d.writer.commits.Load()

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
				r := engine.NewRule(c.id, "tool_preference", engine.SeverityShould, "Text of "+c.id, engine.Scope{}, engine.DefaultConfig(), t0)
				if err := dt.InsertRule(store.RuleRow{Rule: r}); err != nil {
					return err
				}
				switch c.fail {
				case "error":
					return engine.Errorf(engine.EINVALID, "refused %s", c.id)
				case "database": // a duplicate key: the server aborts the transaction
					r.RuleID = "tool.taken"
					return dt.InsertRule(store.RuleRow{Rule: r})
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
	if got := d.writer.commits.Load() - commits0; got != 1 {
		t.Errorf("commits = %d, want 1 (the queued writes join the held write's group)", got)
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
		case "database":
			if out[i].err == nil || !strings.Contains(out[i].err.Error(), "23505") {
				t.Errorf("%s: err %v, want the duplicate key error", c.id, out[i].err)
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

// TestWriteFirstOfGroupFails: when the first write of a group fails in the
// database, it is rolled back and the ones queued behind it are written.
func TestWriteFirstOfGroupFails(t *testing.T) {
	ctx := context.Background()
	db, d, _ := mustOpen(t)
	mustCreate(t, db, "tool.taken")
	release, waitFirst := holdWriter(t, db)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, id := range []string{"tool.taken", "tool.good"} {
		wg.Go(func() {
			errs[i] = d.Write(ctx, func(dt store.DriverTx) error {
				r := engine.NewRule(id, "tool_preference", engine.SeverityShould, "Text", engine.Scope{}, engine.DefaultConfig(), t0)
				return dt.InsertRule(store.RuleRow{Rule: r})
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
		t.Fatalf("errs = %v, want [duplicate key, <nil>]", errs)
	}
	if _, err := db.GetRule(ctx, "tool.good"); err != nil {
		t.Errorf("tool.good: %v", err)
	}
}

// TestWriteCancelledWhileQueued: a write whose context ends while it waits
// in the queue is answered with the context's error and never runs.
func TestWriteCancelledWhileQueued(t *testing.T) {
	db, d, _ := mustOpen(t)
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
	mustCreate(t, db, "tool.after") // the writer goes on
}

// TestWriteAfterClose: Write on a closed store is an internal error saying
// so, and runs nothing.
func TestWriteAfterClose(t *testing.T) {
	_, _, dsn := mustOpen(t)
	d, err := Open(context.Background(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := store.New(d)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	ran := false
	err = db.Write(context.Background(), func(*store.Tx) error { ran = true; return nil })
	if engine.ErrorCode(err) != engine.EINTERNAL || !strings.Contains(err.Error(), "database is closed") || ran {
		t.Fatalf("Write after Close: %v (ran %v), want an internal error saying the database is closed", err, ran)
	}
}

// TestWritesWaitForAnotherInstance: a write of one instance waits while
// another instance's write transaction holds the store's write lock, and
// then sees what it committed.
func TestWritesWaitForAnotherInstance(t *testing.T) {
	ctx := context.Background()
	a, _, dsn := mustOpen(t)
	b, bd := mustOpenURL(t, dsn)
	mustCreate(t, a, "tool.x")
	release, waitFirst := holdWriter(t, a)
	// a's held write holds the write lock: it is taken before a write function runs.
	done := make(chan error, 1)
	go func() {
		_, err := record(ctx, b, engine.Correction{RuleID: "tool.x", Polarity: engine.Reinforce, UserText: "b", At: t0})
		done <- err
	}()
	// Wait until b's writer waits for the lock (pg_locks lists a bigint
	// advisory key as classid = high 32 bits, objid = low 32 bits).
	key := uint64(lockKey("write", bd.schema))
	for waiting := 0; waiting == 0; {
		select {
		case err := <-done:
			t.Fatalf("b's write finished (%v) while a held the write lock", err)
		default:
		}
		err := bd.pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
			AND classid::bigint = $1 AND objid::bigint = $2 AND objsubid = 1`, int64(key>>32), int64(key&0xffffffff)).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
	}
	release()
	if err := waitFirst(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r, _ := a.GetRule(ctx, "tool.x")
	if r.Alpha != 3 {
		t.Errorf("alpha %v, want 3", r.Alpha)
	}
}

// TestWriteGoingOnAfterDatabaseError: a write function that ignores a
// failed statement and returns nil is not acknowledged: the server rolled
// the transaction back, and none of its writes is stored.
func TestWriteGoingOnAfterDatabaseError(t *testing.T) {
	ctx := context.Background()
	db, d, _ := mustOpen(t)
	mustCreate(t, db, "tool.taken")
	err := d.Write(ctx, func(dt store.DriverTx) error {
		r := engine.NewRule("tool.new", "tool_preference", engine.SeverityShould, "Text", engine.Scope{}, engine.DefaultConfig(), t0)
		if err := dt.InsertRule(store.RuleRow{Rule: r}); err != nil {
			return err
		}
		r.RuleID = "tool.taken"
		_ = dt.InsertRule(store.RuleRow{Rule: r}) // fails: duplicate key
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "rolled back") {
		t.Fatalf("Write: %v, want the rollback reported", err)
	}
	if _, err := db.GetRule(ctx, "tool.new"); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Errorf("tool.new: %v, want not found", err)
	}
}
