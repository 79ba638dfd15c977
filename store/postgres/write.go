package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/groupcommit"
)

// Writes. Every write transaction first takes the store's write lock
// (pg_advisory_xact_lock on the schema's key), which PostgreSQL releases
// when the transaction ends, after its commit is visible: the writes of
// every instance on the database run one after another, each seeing all
// those committed before it, as on SQLite. Holding the lock through the
// commit's WAL flush would cap writes at one flush each, so, as in the
// SQLite driver, every Write of an instance goes through the write queue
// (store/internal/groupcommit), which runs the queued write functions in
// one transaction, each after the first in a savepoint, and commits them
// together. Statements of a write run without their caller's cancellation
// (a cancelled request must not break the connection the others' writes
// share: see runner.sctx).

// maxGroup is the most write requests committed together.
const maxGroup = 128

// Write runs fn in the store's write transaction, possibly with other
// callers' functions, each in a savepoint, and returns once the commit
// holding its writes returned. Errors: fn's; EUNAVAILABLE when the server
// cannot be reached, only accepts reads, is out of disk, or the write lock
// or a statement timed out; context errors when ctx ended before fn
// started; internal errors (a failed commit: nothing was written; a closed
// store).
func (d *Driver) Write(ctx context.Context, fn func(store.DriverTx) error) error {
	if d.readOnly {
		if err := ctx.Err(); err != nil {
			return dbErr("begin a write transaction", err)
		}
		return faultErr(store.FaultReadOnly, "write", fmt.Errorf("%s was opened read-only", d.location))
	}
	return d.writer.Submit(ctx, fn)
}

var errClosed = errors.New("store: the database is closed")

// writeBackend is the PostgreSQL side of the write queue.
type writeBackend struct{ d *Driver }

func startWriter(d *Driver) *groupcommit.Queue { return groupcommit.Start(writeBackend{d}, maxGroup) }

// Begin takes a connection and sends BEGIN and the write lock in one message.
func (b writeBackend) Begin() (groupcommit.Tx, error) {
	ctx := context.Background()
	conn, err := b.d.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	_, err = conn.Exec(ctx, fmt.Sprintf("BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(%d)", b.d.writeKey))
	if err != nil {
		conn.Release() // in a transaction or broken: the pool destroys it
		return nil, err
	}
	return &writeTx{d: b.d, conn: conn}, nil
}

func (writeBackend) Err(op string, err error) error { return dbErr(op, err) }

func (writeBackend) Closed() error { return errClosed }

// Outcome records what a write met: a fault of the database, or with nil a
// commit, which clears a full disk or read-only fault.
func (b writeBackend) Outcome(err error) { b.d.faults.Note(err) }

// writeTx is a write transaction on one connection of the pool. It saves
// round trips: a member after the first runs after one savepoint message
// (RELEASE of the previous member's savepoint and SAVEPOINT together, or
// none after a ROLLBACK TO, which keeps the savepoint); COMMIT ends the
// last savepoint too.
type writeTx struct {
	d         *Driver
	conn      *pgxpool.Conn
	savepoint string // "": none yet; "clean": set, nothing after it; "used": a member's writes after it
}

func (t *writeTx) exec(sql string) error {
	_, err := t.conn.Exec(context.Background(), sql)
	return err
}

func (t *writeTx) DriverTx(ctx context.Context) store.DriverTx {
	return runner{ctx: ctx, q: t.conn, d: t.d, inTx: true, detached: true}
}

func (t *writeTx) Savepoint() error {
	var err error
	switch t.savepoint {
	case "":
		err = t.exec("SAVEPOINT write_request")
	case "used":
		err = t.exec("RELEASE SAVEPOINT write_request; SAVEPOINT write_request")
	}
	t.savepoint = "used"
	return err
}

func (t *writeTx) EndSavepoint(failed bool) error {
	if !failed {
		return nil
	}
	t.savepoint = "clean"
	return t.exec("ROLLBACK TO SAVEPOINT write_request")
}

// Commit commits and releases the connection. The server answers a COMMIT
// of a transaction a failed statement aborted (a write function that went
// on after a database error) with ROLLBACK: that is an error.
func (t *writeTx) Commit() error {
	defer t.conn.Release()
	tag, err := t.conn.Exec(context.Background(), "COMMIT")
	if err == nil && tag.String() != "COMMIT" {
		err = errors.New("store: the transaction was rolled back by a failed statement in it")
	}
	return err
}

func (t *writeTx) Rollback() {
	_ = t.exec("ROLLBACK")
	t.conn.Release()
}
