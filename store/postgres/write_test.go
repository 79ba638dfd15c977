package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/groupcommit/committest"
)

// The group-commit scenarios of committest, on a PostgreSQL schema: the
// write queue's savepoints (a duplicate key aborts the statement's
// savepoint, not the group), its rollback of a failed first write and its
// cancelled and closed cases.

func TestWriteGroupCommit(t *testing.T) {
	db, d, _ := mustOpen(t)
	committest.Group(t, db, d, d.writer)
}

func TestWriteFirstOfGroupFails(t *testing.T) {
	db, d, _ := mustOpen(t)
	committest.FirstOfGroupFails(t, db, d, d.writer)
}

func TestWriteCancelledWhileQueued(t *testing.T) {
	db, d, _ := mustOpen(t)
	committest.CancelledWhileQueued(t, db, d, d.writer)
}

func TestWriteAfterClose(t *testing.T) {
	_, _, dsn := mustOpen(t)
	d, err := Open(context.Background(), dsn, store.Options{Clock: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	db := store.New(d, store.Options{Clock: time.Now})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	committest.AfterClose(t, db)
}

// TestWritesWaitForAnotherInstance: a write of one instance waits while
// another instance's write transaction holds the store's write lock, and
// then sees what it committed.
func TestWritesWaitForAnotherInstance(t *testing.T) {
	ctx := context.Background()
	a, _, dsn := mustOpen(t)
	b, bd := mustOpenURL(t, dsn)
	mustCreate(t, a, "tool.x")
	release, waitFirst := committest.Hold(t, a)
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
// failed statement and returns nil is not acknowledged, and none of its
// writes is stored: when a later read met the failure (ignored too), the
// server rolled the transaction back; when the failed insert was still
// queued as the function returned, the write fails with its error.
func TestWriteGoingOnAfterDatabaseError(t *testing.T) {
	for _, tc := range []struct {
		name string
		read bool // read after the failed insert, ignoring the error
		want string
	}{
		{"read after it", true, "rolled back"},
		{"queued to the end", false, "insert rule tool.taken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			db, d, _ := mustOpen(t)
			mustCreate(t, db, "tool.taken")
			err := d.Write(ctx, func(dt store.DriverTx) error {
				r := engine.NewRule("tool.new", "tool_preference", engine.SeverityShould, "Text", engine.Scope{}, engine.DefaultConfig(), t0)
				if err := dt.InsertRule(store.RuleRow{Rule: r}, t0); err != nil {
					return err
				}
				r.RuleID = "tool.taken"
				_ = dt.InsertRule(store.RuleRow{Rule: r}, t0) // fails: duplicate key
				if tc.read {
					_, _ = dt.RuleExists("tool.new")
				}
				return nil
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Write: %v, want an error saying %q", err, tc.want)
			}
			if _, err := db.GetRule(ctx, "tool.new"); engine.ErrorCode(err) != engine.ENOTFOUND {
				t.Errorf("tool.new: %v, want not found", err)
			}
		})
	}
}
