package postgres

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexsona/lexsona/store"
)

// Writes. Every write transaction first takes the store's write lock
// (pg_advisory_xact_lock on the schema's key), which PostgreSQL releases
// when the transaction ends, after its commit is visible: the writes of
// every instance on the database run one after another, each seeing all
// those committed before it, as on SQLite. Holding the lock through the
// commit's WAL flush would cap writes at one flush each, so, as the SQLite
// driver does, one writer goroutine per instance runs the queued write
// functions in one transaction and commits them together:
//
//   - it takes the first queued request, BEGINs, takes the lock and runs it;
//     when it fails, the transaction is rolled back and the request answered;
//   - then, while requests are queued (those that arrived while it waited
//     for the lock or the previous commit, typically) and the group is
//     under maxGroup, it runs each inside a SAVEPOINT: a failing one is
//     rolled back to its savepoint and answered with its error at once;
//   - it COMMITs and answers every member with the commit's result.
//
// No request is answered success before the commit holding its writes has
// returned. Statements of a write run without their caller's cancellation
// (a cancelled request must not break the connection the others' writes
// share: see runner.sctx); a request whose caller is gone before its turn
// runs nothing.

// maxGroup is the most write requests committed together.
const maxGroup = 128

// writeReq states: queued until the writer takes it or its caller gives up.
const (
	reqQueued int32 = iota
	reqTaken
	reqAbandoned
)

// writeReq is one Write call waiting for the writer.
type writeReq struct {
	ctx      context.Context
	fn       func(store.DriverTx) error
	state    atomic.Int32
	err      error
	panicVal any    // what fn panicked with, re-raised in the caller
	stack    []byte // where
	done     chan struct{}
}

func (r *writeReq) finish(err error) {
	r.err = err
	close(r.done)
}

// writer is the goroutine that runs every write transaction of a driver.
type writer struct {
	d     *Driver
	queue chan *writeReq
	// commits counts the transactions committed or rolled back (for tests
	// and benchmarks of group commit).
	commits atomic.Uint64

	mu     sync.RWMutex // guards closed against sends on a closed queue
	closed bool
	done   chan struct{}
}

func startWriter(d *Driver) *writer {
	w := &writer{d: d, queue: make(chan *writeReq, 1024), done: make(chan struct{})}
	go w.run()
	return w
}

// Write runs fn in the store's write transaction, possibly with other
// callers' functions, each in a savepoint, and returns once the commit
// holding its writes returned. Errors: fn's; EUNAVAILABLE when the server
// cannot be reached, only accepts reads, is out of disk, or the write lock
// or a statement timed out; context errors when ctx ended before fn
// started; internal errors (a failed commit: nothing was written; a closed
// store).
func (d *Driver) Write(ctx context.Context, fn func(store.DriverTx) error) error {
	return d.writer.submit(ctx, fn)
}

var errClosed = errors.New("store: the database is closed")

// submit queues fn and waits for its answer. A request whose context ends
// before the writer took it is dropped unrun; once taken, the caller waits
// for its outcome (a done context makes its next statement fail).
func (w *writer) submit(ctx context.Context, fn func(store.DriverTx) error) error {
	if err := ctx.Err(); err != nil {
		return dbErr("begin a write transaction", err)
	}
	if w.d.readOnly {
		return faultErr(store.FaultReadOnly, "write", fmt.Errorf("%s was opened read-only", w.d.location))
	}
	r := &writeReq{ctx: ctx, fn: fn, done: make(chan struct{})}
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return errClosed
	}
	select {
	case w.queue <- r:
	case <-ctx.Done():
		w.mu.RUnlock()
		return dbErr("begin a write transaction", ctx.Err())
	}
	w.mu.RUnlock()
	select {
	case <-r.done:
	case <-ctx.Done():
		if r.state.CompareAndSwap(reqQueued, reqAbandoned) {
			return dbErr("begin a write transaction", ctx.Err())
		}
		<-r.done
	}
	if r.panicVal != nil {
		panic(fmt.Sprintf("%v\n\nwrite function's stack:\n%s", r.panicVal, r.stack))
	}
	return r.err
}

// close stops taking requests, runs the queued ones and waits for the
// goroutine. Calling it again does nothing.
func (w *writer) close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.queue)
	}
	w.mu.Unlock()
	<-w.done
}

func (w *writer) run() {
	defer close(w.done)
	for r := range w.queue {
		if r.state.CompareAndSwap(reqQueued, reqTaken) {
			w.group(r)
		}
	}
}

// group runs first and as many queued requests as are waiting (up to
// maxGroup) in one transaction under the write lock, and commits it. It
// saves round trips: BEGIN and the lock go in one message; a member after
// the first runs after one savepoint message (RELEASE of the previous
// member's savepoint and SAVEPOINT together, or none after a ROLLBACK TO,
// which keeps the savepoint); COMMIT ends the last savepoint too.
func (w *writer) group(first *writeReq) {
	ctx := context.Background()
	conn, err := w.d.pool.Acquire(ctx)
	if err == nil {
		_, err = conn.Exec(ctx, fmt.Sprintf("BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(%d)", w.d.writeKey))
		if err != nil {
			conn.Release() // in a transaction or broken: the pool destroys it
		}
	}
	if err != nil {
		err = dbErr("begin a write transaction", err)
		w.outcome(err)
		first.finish(err)
		return
	}
	defer conn.Release()
	end := func(sql string) error {
		_, err := conn.Exec(ctx, sql)
		return err
	}
	if err := w.call(conn, first); err != nil {
		_ = end("ROLLBACK")
		w.commits.Add(1)
		w.outcome(err)
		first.finish(err)
		return
	}
	members := []*writeReq{first}
	savepoint := "" // "": none yet; "clean": set, nothing after it; "used": a member's writes after it
	for len(members) < maxGroup {
		var r *writeReq
		select {
		case r = <-w.queue:
		default:
		}
		if r == nil { // nothing waiting, or the queue is closed and drained
			break
		}
		if !r.state.CompareAndSwap(reqQueued, reqTaken) {
			continue
		}
		var err error
		switch savepoint {
		case "":
			err = end("SAVEPOINT write_request")
		case "used":
			err = end("RELEASE SAVEPOINT write_request; SAVEPOINT write_request")
		}
		if err != nil {
			w.abort(conn, append(members, r), dbErr("begin a savepoint", err))
			return
		}
		savepoint = "used"
		ferr := w.call(conn, r)
		if ferr == nil {
			members = append(members, r)
			continue
		}
		if err := end("ROLLBACK TO SAVEPOINT write_request"); err != nil { // the transaction is gone
			r.finish(ferr)
			w.abort(conn, members, fmt.Errorf("store: the transaction was rolled back by a failed write in it: %w", ferr))
			return
		}
		savepoint = "clean"
		w.outcome(ferr)
		r.finish(ferr)
	}
	tag, err := conn.Exec(ctx, "COMMIT")
	if err == nil && tag.String() != "COMMIT" {
		// The server rolls back a transaction a failed statement aborted
		// (a write function that went on after a database error).
		err = errors.New("store: the transaction was rolled back by a failed statement in it")
	}
	w.commits.Add(1)
	if err != nil {
		err = dbErr("commit", err)
	}
	w.outcome(err)
	for _, m := range members {
		m.finish(err)
	}
}

// outcome records what a write met: a fault of the database, or with nil a
// commit, which clears a full disk or read-only fault.
func (w *writer) outcome(err error) { w.d.faults.Note(err) }

// abort rolls the transaction back and answers members with err.
func (w *writer) abort(conn *pgxpool.Conn, members []*writeReq, err error) {
	_, _ = conn.Exec(context.Background(), "ROLLBACK")
	w.outcome(err)
	w.commits.Add(1)
	for _, m := range members {
		m.finish(err)
	}
}

// call runs r's function on the transaction (unless r's context has ended).
// A panic is caught, recorded for the caller to re-raise, and returned as an
// error so that r's writes are rolled back.
func (w *writer) call(conn *pgxpool.Conn, r *writeReq) (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.panicVal, r.stack = p, debug.Stack()
			err = fmt.Errorf("store: write function panicked: %v", p)
		}
	}()
	if err := r.ctx.Err(); err != nil { // its caller is gone: run nothing
		return dbErr("begin a write transaction", err)
	}
	return r.fn(runner{ctx: r.ctx, q: conn, d: w.d, inTx: true, detached: true})
}
