package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/lexsona/lexsona/store"
)

// Group commit. The write connection commits with synchronous=FULL: a
// transaction is durable (its write-ahead log frames are on disk) when
// COMMIT returns, so an acknowledged write survives a power cut. That fsync
// costs milliseconds on real disks; paying it once per write would cap
// writes at the disk's fsyncs per second. So every Write goes through one
// writer goroutine that runs the queued write functions in one SQLite
// transaction and commits them together:
//
//   - it takes the first queued request, BEGINs (IMMEDIATE) and runs it;
//     when it fails, the transaction is rolled back and the request answered;
//   - then, while requests are queued (those that arrived during the previous
//     commit's fsync, typically) and the group is under maxGroup, it runs each
//     inside a SAVEPOINT: a failing one is rolled back to its savepoint and
//     answered with its error at once, the others stay in the group;
//   - it COMMITs and answers every member with the commit's result.
//
// No request is answered success before the commit holding its writes has
// returned. A lone writer pays what it paid without grouping (no savepoint:
// one BEGIN, its statements, one COMMIT); concurrent writers share one fsync.
// When the transaction itself is lost (SQLite rolls it back on some I/O
// errors, which a savepoint cannot undo), every member not yet answered gets
// the error: none of them was written.
//
// Members of a group see each other's writes, as they would see them in
// consecutive transactions; a failed commit fails them all.

// writeConfig is how the write connection commits; tests and benchmarks
// change it.
type writeConfig struct {
	synchronous string // PRAGMA synchronous of the write connection: FULL or NORMAL
	maxGroup    int    // most write requests committed together; 1 commits each alone
}

// defaultWrite commits durably, up to 128 requests per commit.
var defaultWrite = writeConfig{synchronous: "FULL", maxGroup: 128}

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

// writer is the goroutine that runs every write transaction (see above).
type writer struct {
	d        *Driver
	maxGroup int
	queue    chan *writeReq

	mu     sync.RWMutex // guards closed against sends on a closed queue
	closed bool
	done   chan struct{}
}

func startWriter(d *Driver, maxGroup int) *writer {
	w := &writer{d: d, maxGroup: max(1, maxGroup), queue: make(chan *writeReq, 1024), done: make(chan struct{})}
	go w.run()
	return w
}

// submit queues fn and waits for its answer. A request its caller's context
// ends on before the writer took it is dropped unrun; once taken, the caller
// waits for its outcome (a done context makes its next statement fail).
func (w *writer) submit(ctx context.Context, fn func(store.DriverTx) error) error {
	if err := ctx.Err(); err != nil {
		return dbErr("begin a write transaction", err)
	}
	if w.d.readOnly {
		return w.d.readOnlyErr()
	}
	r := &writeReq{ctx: ctx, fn: fn, done: make(chan struct{})}
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return w.closedErr()
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

// closedErr is what a write after Close gets: the closed write pool's own
// error (sql: database is closed), as an internal error.
func (w *writer) closedErr() error {
	tx, err := w.d.write.Begin()
	if err == nil { // Close has not closed the pool yet
		_ = tx.Rollback()
		err = sql.ErrConnDone
	}
	return dbErr("begin a write transaction", err)
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
// maxGroup) in one transaction and commits it.
func (w *writer) group(first *writeReq) {
	sqlTx, err := w.d.write.BeginTx(context.Background(), nil)
	if err != nil {
		err = dbErr("begin a write transaction", err)
		w.outcome(err)
		first.finish(err)
		return
	}
	if err := w.call(sqlTx, first); err != nil {
		_ = sqlTx.Rollback()
		w.outcome(err)
		first.finish(err)
		return
	}
	members := []*writeReq{first}
	for len(members) < w.maxGroup {
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
		if _, err := sqlTx.Exec("SAVEPOINT write_request"); err != nil {
			w.abort(sqlTx, append(members, r), dbErr("begin a savepoint", err))
			return
		}
		ferr := w.call(sqlTx, r)
		if ferr != nil {
			_, err = sqlTx.Exec("ROLLBACK TO write_request")
		}
		if err == nil {
			_, err = sqlTx.Exec("RELEASE write_request")
		}
		if err != nil { // the transaction is gone: nothing in it was written
			lost := dbErr("end a savepoint", err)
			if ferr != nil {
				r.finish(ferr)
				lost = fmt.Errorf("store: the transaction was rolled back by a failed write in it: %w", ferr)
			} else {
				members = append(members, r)
			}
			w.abort(sqlTx, members, lost)
			return
		}
		if ferr != nil {
			w.outcome(ferr)
			r.finish(ferr)
			continue
		}
		members = append(members, r)
	}
	err = sqlTx.Commit()
	w.d.commits.Add(1)
	w.d.ckpt.notify()
	if err != nil {
		err = dbErr("commit", err)
	}
	w.outcome(err)
	for _, m := range members {
		m.finish(err)
	}
}

// outcome records what a write met: a fault of the file, or
// with nil a commit, which clears a full disk or read-only fault. A write
// that failed for space makes the checkpointer try at once to copy the
// write-ahead log into the database file and truncate it, which gives its
// space back when the log is what filled the disk; so does the first commit
// after such a failure, once space was freed.
func (w *writer) outcome(err error) {
	wasFull := store.Fault(w.d.faults.Get()) == store.FaultDiskFull
	w.d.faults.Note(err)
	if w.d.ckpt != nil && (store.Fault(err) == store.FaultDiskFull || (err == nil && wasFull)) {
		w.d.ckpt.urgent()
	}
}

// abort rolls the transaction back and answers members with err.
func (w *writer) abort(sqlTx *sql.Tx, members []*writeReq, err error) {
	_ = sqlTx.Rollback()
	w.outcome(err)
	w.d.commits.Add(1)
	for _, m := range members {
		m.finish(err)
	}
}

// call runs r's function on the transaction (unless r's context has ended).
// A panic is caught, recorded for the caller to re-raise, and returned as an
// error so that r's writes are rolled back.
func (w *writer) call(sqlTx *sql.Tx, r *writeReq) (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.panicVal, r.stack = p, debug.Stack()
			err = fmt.Errorf("store: write function panicked: %v", p)
		}
	}()
	if err := r.ctx.Err(); err != nil { // its caller is gone: run nothing
		return dbErr("begin a write transaction", err)
	}
	return r.fn(runner{ctx: r.ctx, tx: sqlTx, stmts: w.d.wstmt, d: w.d})
}
