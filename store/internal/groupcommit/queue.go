// Package groupcommit is the write queue of the SQL store drivers: every
// write of a driver goes through one goroutine that runs the queued write
// functions in one database transaction and commits them together, so that
// concurrent writers share one commit (one fsync, one WAL flush, one turn
// of a lock) instead of paying one each:
//
//   - it takes the first queued request, begins a transaction and runs it;
//     when it fails, the transaction is rolled back and the request answered;
//   - then, while requests are queued (those that arrived during the
//     previous commit, typically) and the group is under its maximum, it
//     runs each inside a savepoint: a failing one is rolled back to its
//     savepoint and answered with its error at once, the others stay in
//     the group;
//   - it commits and answers every member with the commit's result.
//
// No request is answered success before the commit holding its writes has
// returned. A lone writer pays what it paid without grouping (no
// savepoint). When the transaction itself is lost (a savepoint that cannot
// be ended), every member not yet answered gets the error: none of them
// was written. Members of a group see each other's writes, as they would
// in consecutive transactions; a failed commit fails them all.
//
// The database side — how a transaction begins, what a savepoint costs,
// how a commit is checked — is the driver's Backend.
package groupcommit

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/lexsona/lexsona/store"
)

// Tx is a write transaction of a Backend.
type Tx interface {
	// DriverTx is what a write function of a caller with ctx runs on.
	DriverTx(ctx context.Context) store.DriverTx
	// Savepoint starts the savepoint of a member after the first.
	Savepoint() error
	// EndSavepoint ends it; failed says the member's function failed, so
	// its writes since Savepoint must be undone. An error means the
	// transaction is lost.
	EndSavepoint(failed bool) error
	// Commit commits the transaction; Rollback abandons it (its error does
	// not matter: nothing of it was written either way). Both end it.
	Commit() error
	Rollback()
}

// Backend is the database side of a Queue.
type Backend interface {
	// Begin starts a write transaction.
	Begin() (Tx, error)
	// Outcome is told what each write met: an error, or nil for a commit.
	Outcome(err error)
	// Err turns a database error of op into what callers see (nil stays nil).
	Err(op string, err error) error
	// Closed is the error a write after Close gets.
	Closed() error
}

// request states: queued until the writer takes it or its caller gives up.
const (
	reqQueued int32 = iota
	reqTaken
	reqAbandoned
)

// request is one Submit call waiting for the writer.
type request struct {
	ctx      context.Context
	fn       func(store.DriverTx) error
	state    atomic.Int32
	err      error
	panicVal any    // what fn panicked with, re-raised in the caller
	stack    []byte // where
	done     chan struct{}
}

func (r *request) finish(err error) {
	r.err = err
	close(r.done)
}

// Queue is a driver's write queue and the goroutine that empties it.
type Queue struct {
	b        Backend
	maxGroup int
	queue    chan *request
	commits  atomic.Uint64

	mu     sync.RWMutex // guards closed against sends on a closed queue
	closed bool
	done   chan struct{}
}

// Start starts the writer of b, committing up to maxGroup requests
// together (1: each alone).
func Start(b Backend, maxGroup int) *Queue {
	q := &Queue{b: b, maxGroup: max(1, maxGroup), queue: make(chan *request, 1024), done: make(chan struct{})}
	go q.run()
	return q
}

// Len is the number of requests waiting for the writer.
func (q *Queue) Len() int { return len(q.queue) }

// Commits counts the transactions the writer ended (committed or rolled
// back), for tests and benchmarks of grouping.
func (q *Queue) Commits() uint64 { return q.commits.Load() }

// Submit queues fn and waits for its answer: fn's error, a database error
// (Backend.Err: of beginning, of a savepoint, of the commit), Closed after
// Close. A request whose caller's context ends before the writer took it
// is dropped unrun and gets the context's error; once taken, the caller
// waits for its outcome (a done context makes its next statement fail). A
// panic of fn is raised again here, with fn's stack.
func (q *Queue) Submit(ctx context.Context, fn func(store.DriverTx) error) error {
	if err := ctx.Err(); err != nil {
		return q.b.Err("begin a write transaction", err)
	}
	r := &request{ctx: ctx, fn: fn, done: make(chan struct{})}
	q.mu.RLock()
	if q.closed {
		q.mu.RUnlock()
		return q.b.Closed()
	}
	select {
	case q.queue <- r:
	case <-ctx.Done():
		q.mu.RUnlock()
		return q.b.Err("begin a write transaction", ctx.Err())
	}
	q.mu.RUnlock()
	select {
	case <-r.done:
	case <-ctx.Done():
		if r.state.CompareAndSwap(reqQueued, reqAbandoned) {
			return q.b.Err("begin a write transaction", ctx.Err())
		}
		<-r.done
	}
	if r.panicVal != nil {
		panic(fmt.Sprintf("%v\n\nwrite function's stack:\n%s", r.panicVal, r.stack))
	}
	return r.err
}

// Close stops taking requests, runs the queued ones and waits for the
// writer. Calling it again does nothing.
func (q *Queue) Close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.queue)
	}
	q.mu.Unlock()
	<-q.done
}

func (q *Queue) run() {
	defer close(q.done)
	for r := range q.queue {
		if r.state.CompareAndSwap(reqQueued, reqTaken) {
			q.group(r)
		}
	}
}

// group runs first and as many queued requests as are waiting (up to
// maxGroup) in one transaction and commits it.
func (q *Queue) group(first *request) {
	tx, err := q.b.Begin()
	if err != nil {
		err = q.b.Err("begin a write transaction", err)
		q.b.Outcome(err)
		first.finish(err)
		return
	}
	if err := q.call(tx, first); err != nil {
		q.abort(tx, nil, err)
		first.finish(err)
		return
	}
	members := []*request{first}
	for len(members) < q.maxGroup {
		var r *request
		select {
		case r = <-q.queue:
		default:
		}
		if r == nil { // nothing waiting, or the queue is closed and drained
			break
		}
		if !r.state.CompareAndSwap(reqQueued, reqTaken) {
			continue
		}
		if err := tx.Savepoint(); err != nil {
			q.abort(tx, append(members, r), q.b.Err("begin a savepoint", err))
			return
		}
		ferr := q.call(tx, r)
		if err := tx.EndSavepoint(ferr != nil); err != nil { // the transaction is gone: nothing in it was written
			if ferr != nil {
				r.finish(ferr)
				q.abort(tx, members, fmt.Errorf("store: the transaction was rolled back by a failed write in it: %w", ferr))
			} else {
				q.abort(tx, append(members, r), q.b.Err("end a savepoint", err))
			}
			return
		}
		if ferr != nil {
			q.b.Outcome(ferr)
			r.finish(ferr)
			continue
		}
		members = append(members, r)
	}
	err = q.b.Err("commit", tx.Commit())
	q.commits.Add(1)
	q.b.Outcome(err)
	for _, m := range members {
		m.finish(err)
	}
}

// abort rolls the transaction back and answers members with err.
func (q *Queue) abort(tx Tx, members []*request, err error) {
	tx.Rollback()
	q.commits.Add(1)
	q.b.Outcome(err)
	for _, m := range members {
		m.finish(err)
	}
}

// call runs r's function on the transaction (unless r's context has ended).
// A panic is caught, recorded for the caller to re-raise, and returned as an
// error so that r's writes are rolled back.
func (q *Queue) call(tx Tx, r *request) (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.panicVal, r.stack = p, debug.Stack()
			err = fmt.Errorf("store: write function panicked: %v", p)
		}
	}()
	if err := r.ctx.Err(); err != nil { // its caller is gone: run nothing
		return q.b.Err("begin a write transaction", err)
	}
	return r.fn(tx.DriverTx(r.ctx))
}
