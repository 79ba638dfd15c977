package sqlite

import (
	"context"
	"database/sql"

	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/groupcommit"
)

// Group commit. The write connection commits with synchronous=FULL: a
// transaction is durable (its write-ahead log frames are on disk) when
// COMMIT returns, so an acknowledged write survives a power cut. That fsync
// costs milliseconds on real disks; paying it once per write would cap
// writes at the disk's fsyncs per second. So every Write goes through the
// write queue (store/internal/groupcommit), which runs the queued write
// functions in one SQLite transaction (BEGIN IMMEDIATE on the single write
// connection), each after the first in a SAVEPOINT, and commits them
// together: concurrent writers share one fsync. SQLite rolls a transaction
// back on some I/O errors, which a savepoint cannot undo: the queue then
// answers every member with the error.

// writeConfig is how the write connection commits; tests and benchmarks
// change it.
type writeConfig struct {
	synchronous string // PRAGMA synchronous of the write connection: FULL or NORMAL
	maxGroup    int    // most write requests committed together; 1 commits each alone
}

// defaultWrite commits durably, up to 128 requests per commit.
var defaultWrite = writeConfig{synchronous: "FULL", maxGroup: 128}

// writeBackend is the SQLite side of the write queue.
type writeBackend struct{ d *Driver }

func startWriter(d *Driver, maxGroup int) *groupcommit.Queue {
	return groupcommit.Start(writeBackend{d}, maxGroup)
}

func (b writeBackend) Begin() (groupcommit.Tx, error) {
	b.d.wstmt.ready(context.Background())
	tx, err := b.d.write.BeginTx(context.Background(), nil)
	if err != nil {
		return nil, err
	}
	return writeTx{d: b.d, tx: tx, bound: map[string]*sql.Stmt{}}, nil
}

func (b writeBackend) Err(op string, err error) error { return b.d.dbErr(op, err) }

// Closed is what a write after Close gets: the closed write pool's own
// error (sql: database is closed), as an internal error.
func (b writeBackend) Closed() error {
	tx, err := b.d.write.Begin()
	if err == nil { // Close has not closed the pool yet
		_ = tx.Rollback()
		err = sql.ErrConnDone
	}
	return dbErr("begin a write transaction", err)
}

// Outcome records what a write met: a fault of the file, or with nil a
// commit, which clears a full disk or read-only fault. A write that failed
// for space makes the checkpointer try at once to copy the write-ahead log
// into the database file and truncate it, which gives its space back when
// the log is what filled the disk; so does the first commit after such a
// failure, once space was freed.
func (b writeBackend) Outcome(err error) {
	d := b.d
	wasFull := store.Fault(d.faults.Get()) == store.FaultDiskFull
	d.faults.Note(err)
	if d.ckpt != nil && (store.Fault(err) == store.FaultDiskFull || (err == nil && wasFull)) {
		d.ckpt.urgent()
	}
}

// writeTx is a write transaction on the write connection; bound holds its
// prepared statements bound to it, each bound once (see runner.stmt).
type writeTx struct {
	d     *Driver
	tx    *sql.Tx
	bound map[string]*sql.Stmt
}

func (t writeTx) DriverTx(ctx context.Context) store.DriverTx {
	r := t.d.newRunner(ctx, t.tx, nil, t.d.wstmt)
	r.bound = t.bound
	return on(r)
}

func (t writeTx) Savepoint() error {
	_, err := t.tx.Exec("SAVEPOINT write_request")
	return err
}

func (t writeTx) EndSavepoint(failed bool) error {
	if failed {
		if _, err := t.tx.Exec("ROLLBACK TO write_request"); err != nil {
			return err
		}
	}
	_, err := t.tx.Exec("RELEASE write_request")
	return err
}

// Commit commits and tells the checkpointer the log grew.
func (t writeTx) Commit() error {
	err := t.tx.Commit()
	if t.d.ckpt != nil {
		t.d.ckpt.notify()
	}
	return err
}

func (t writeTx) Rollback() { _ = t.tx.Rollback() }
