package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

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
// share: see runner.sctx). Within the transaction, writes whose only
// outcome is their error wait in a queue (pipe) and reach the server in
// one batch with the next statement whose result is needed, or when the
// write function returns: a registry sync or a correction pays a round
// trip per read, not per row written.

// maxGroup is the most write requests committed together.
const maxGroup = 128

// Write runs fn in the store's write transaction, possibly with other
// callers' functions, each in a savepoint, and returns once the commit
// holding its writes returned. The writes fn queued (see pipe) are sent
// when it returns: a failure among them fails the call like fn's own
// error, nothing of fn written. Errors: fn's; EUNAVAILABLE when the server
// cannot be reached, only accepts reads, is out of disk, or the write lock
// or a statement timed out; context errors when ctx ended before fn
// started or before its queued writes were sent; internal errors (a failed
// statement, a failed commit: nothing was written; a closed store).
func (d *Driver) Write(ctx context.Context, fn func(store.DriverTx) error) error {
	if d.readOnly {
		if err := ctx.Err(); err != nil {
			return dbErr("begin a write transaction", err)
		}
		return faultErr(store.FaultReadOnly, "write", fmt.Errorf("%s was opened read-only", d.location))
	}
	return d.writer.Submit(ctx, func(dt store.DriverTx) error {
		if err := fn(dt); err != nil {
			return err
		}
		r := dt.(queries).C
		return r.p.flush(r.sctx())
	})
}

var errClosed = errors.New("store: the database is closed")

// writeBackend is the PostgreSQL side of the write queue.
type writeBackend struct{ d *Driver }

func startWriter(d *Driver) *groupcommit.Queue { return groupcommit.Start(writeBackend{d}, maxGroup) }

// Begin takes a connection and sends BEGIN, the write lock and the reads
// of the event id sequence and of the config counter (see configCache) in
// one batch; the server runs the reads once it granted the lock. Under the
// lock no other transaction takes event ids, so the transaction numbers
// its events from the sequence's next value on and sets the sequence past
// the last one before its COMMIT (see Commit): ids stay consecutive, in
// commit order, and an event insert need not wait for its id.
func (b writeBackend) Begin() (groupcommit.Tx, error) {
	ctx := context.Background()
	conn, err := b.d.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	batch := &pgx.Batch{}
	batch.Queue("BEGIN ISOLATION LEVEL READ COMMITTED")
	batch.Queue("SELECT pg_advisory_xact_lock($1)", b.d.writeKey)
	batch.Queue("SELECT last_value, is_called FROM " + b.d.eventSeq)
	batch.Queue("SELECT value FROM store_counters WHERE name = 'config'")
	var last, configVersion int64
	var called bool
	br := conn.SendBatch(ctx, batch)
	_, err = br.Exec()
	if err == nil {
		_, err = br.Exec()
	}
	if err == nil {
		err = br.QueryRow().Scan(&last, &called)
	}
	if err == nil {
		err = br.QueryRow().Scan(&configVersion)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		conn.Release() // in a transaction or broken: the pool destroys it
		return nil, err
	}
	next := last
	if called {
		next++
	}
	return &writeTx{d: b.d, p: &pipe{conn: conn, nextEvent: next, fresh: map[string]map[string]bool{}, configVersion: configVersion}}, nil
}

func (writeBackend) Err(op string, err error) error { return dbErr(op, err) }

func (writeBackend) Closed() error { return errClosed }

// Outcome records what a write met: a fault of the database, or with nil a
// commit, which clears a full disk or read-only fault.
func (b writeBackend) Outcome(err error) { b.d.faults.Note(err) }

// writeTx is a write transaction on one connection of the pool. It saves
// round trips: a member after the first starts with its savepoint commands
// (RELEASE of the previous member's savepoint and SAVEPOINT, or none after
// a ROLLBACK TO, which keeps the savepoint) queued in the pipe, sent with
// its first statement; COMMIT ends the last savepoint too.
type writeTx struct {
	d *Driver
	p *pipe
	// savepoint: "": none yet; "clean": set, nothing after it; "used": a
	// member's writes after it. before is its value when the current
	// member's savepoint commands were queued.
	savepoint, before string
}

func (t *writeTx) exec(sql string) error {
	_, err := t.p.conn.Exec(context.Background(), sql)
	return err
}

func (t *writeTx) DriverTx(ctx context.Context) store.DriverTx {
	return on(runner{ctx: ctx, q: t.p, d: t.d, inTx: true, detached: true, p: t.p})
}

func (t *writeTx) Savepoint() error {
	t.p.drop()
	t.before = t.savepoint
	switch t.savepoint {
	case "":
		t.p.pending = append(t.p.pending, queued{op: "begin a savepoint", sql: "SAVEPOINT write_request", savepoint: true})
		t.p.savepointQueued = true
	case "used":
		t.p.pending = append(t.p.pending,
			queued{op: "end a savepoint", sql: "RELEASE SAVEPOINT write_request", savepoint: true},
			queued{op: "begin a savepoint", sql: "SAVEPOINT write_request", savepoint: true})
		t.p.savepointQueued = true
	}
	t.savepoint = "used"
	return nil
}

// EndSavepoint ends a member. A member whose savepoint never reached the
// server (it ran no statement, or all of its writes were still queued when
// it failed) leaves the savepoint as it was; a failed one that reached it
// is rolled back to its savepoint. A savepoint command that failed in a
// batch lost the transaction: that error is returned.
func (t *writeTx) EndSavepoint(failed bool) error {
	if t.p.lost != nil {
		return t.p.lost
	}
	unsent := t.p.savepointQueued
	t.p.drop()
	if unsent {
		t.savepoint = t.before
		return nil
	}
	if !failed {
		return nil
	}
	t.savepoint = "clean"
	return t.exec("ROLLBACK TO SAVEPOINT write_request")
}

// Commit sets the event id sequence past the transaction's last event,
// commits and releases the connection, in one batch. The server answers a
// COMMIT of a transaction a failed statement aborted (a write function that
// went on after a database error) with ROLLBACK: that is an error.
func (t *writeTx) Commit() error {
	defer t.p.conn.Release()
	if t.p.lost != nil {
		_ = t.exec("ROLLBACK")
		return t.p.lost
	}
	t.p.drop()
	ctx := context.Background()
	batch := &pgx.Batch{}
	if t.p.lastEvent != 0 {
		batch.Queue("SELECT setval($1::regclass, $2, true)", t.d.eventSeq, t.p.lastEvent)
	}
	batch.Queue("COMMIT")
	br := t.p.conn.SendBatch(ctx, batch)
	var tag pgconn.CommandTag
	var err error
	for range batch.Len() {
		if tag, err = br.Exec(); err != nil {
			break
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil && tag.String() != "COMMIT" {
		err = errors.New("store: the transaction was rolled back by a failed statement in it")
	}
	return err
}

func (t *writeTx) Rollback() {
	t.p.drop()
	_ = t.exec("ROLLBACK")
	t.p.conn.Release()
}
