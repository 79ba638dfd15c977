package groupcommit

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/lexsona/lexsona/store"
)

// fakeDB is a Backend over a map of committed keys: a transaction writes
// to a copy, a savepoint snapshots it, a commit publishes it.
type fakeDB struct {
	mu        sync.Mutex
	committed map[string]bool
	outcomes  []error
	// loseOnEnd makes EndSavepoint fail, as when the database rolled the
	// whole transaction back.
	loseOnEnd bool
}

type fakeTx struct {
	db     *fakeDB
	writes map[string]bool
	saved  map[string]bool
}

// fakeDriverTx is what a write function gets: only its Put is used.
type fakeDriverTx struct {
	store.DriverTx
	tx *fakeTx
}

func (f fakeDriverTx) put(k string) { f.tx.writes[k] = true }

func (db *fakeDB) Begin() (Tx, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	w := map[string]bool{}
	for k := range db.committed {
		w[k] = true
	}
	return &fakeTx{db: db, writes: w}, nil
}

func (db *fakeDB) Outcome(err error) {
	db.mu.Lock()
	db.outcomes = append(db.outcomes, err)
	db.mu.Unlock()
}

func (db *fakeDB) Err(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("fake: %s: %w", op, err)
}

var errClosed = errors.New("fake: closed")

func (db *fakeDB) Closed() error { return errClosed }

func (db *fakeDB) has(k string) bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.committed[k]
}

func (t *fakeTx) DriverTx(ctx context.Context) store.DriverTx { return fakeDriverTx{tx: t} }

func (t *fakeTx) Savepoint() error {
	t.saved = map[string]bool{}
	for k := range t.writes {
		t.saved[k] = true
	}
	return nil
}

func (t *fakeTx) EndSavepoint(failed bool) error {
	if t.db.loseOnEnd {
		return errors.New("transaction lost")
	}
	if failed {
		t.writes = t.saved
	}
	return nil
}

func (t *fakeTx) Commit() error {
	t.db.mu.Lock()
	defer t.db.mu.Unlock()
	t.db.committed = t.writes
	return nil
}

func (t *fakeTx) Rollback() {}

// put is a write function storing k; fail makes it fail or panic after.
func put(k, fail string) func(store.DriverTx) error {
	return func(dt store.DriverTx) error {
		dt.(fakeDriverTx).put(k)
		switch fail {
		case "error":
			return errors.New("failed " + k)
		case "panic":
			panic("boom " + k)
		}
		return nil
	}
}

// hold queues a write that waits for release, so that the next ones queue
// behind it.
func hold(t *testing.T, q *Queue) (release func(), wait func() error) {
	t.Helper()
	started, gate := make(chan struct{}), make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- q.Submit(context.Background(), func(store.DriverTx) error {
			close(started)
			<-gate
			return nil
		})
	}()
	<-started
	return func() { close(gate) }, func() error { return <-errc }
}

func waitLen(q *Queue, n int) {
	for q.Len() < n {
		runtime.Gosched()
	}
}

type answer struct {
	err      error
	panicked any
}

// submitQueued submits each write in order behind a held one and returns
// their answers and the held one's once it is released.
func submitQueued(t *testing.T, q *Queue, ctxs []context.Context, fns []func(store.DriverTx) error) (out []answer, held error) {
	release, waitFirst := hold(t, q)
	out = make([]answer, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() {
			defer func() { out[i].panicked = recover() }()
			out[i].err = q.Submit(ctxs[i], fn)
		})
		waitLen(q, i+1)
	}
	release()
	wg.Wait()
	return out, waitFirst()
}

func TestGroup(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxGroup int
		fails    []string // per write: "", "error", "panic"
		commits  uint64   // transactions ended after the held write's
	}{
		{"all succeed in one commit", 128, []string{"", "", ""}, 1},
		{"failures roll back alone", 128, []string{"", "error", "", "panic", ""}, 1},
		{"groups of two", 2, []string{"", "", "", ""}, 3},
		{"each alone", 1, []string{"", "error", ""}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := &fakeDB{}
			q := Start(db, tc.maxGroup)
			defer q.Close()
			var ctxs []context.Context
			var fns []func(store.DriverTx) error
			for i, f := range tc.fails {
				ctxs = append(ctxs, context.Background())
				fns = append(fns, put(fmt.Sprint("k", i), f))
			}
			c0 := q.Commits()
			out, held := submitQueued(t, q, ctxs, fns)
			if held != nil {
				t.Fatalf("held write: %v", held)
			}
			if got := q.Commits() - c0; got != tc.commits {
				t.Errorf("commits = %d, want %d", got, tc.commits)
			}
			for i, f := range tc.fails {
				k := fmt.Sprint("k", i)
				switch f {
				case "":
					if out[i].err != nil || out[i].panicked != nil || !db.has(k) {
						t.Errorf("%s: err %v, panic %v, stored %v; want stored", k, out[i].err, out[i].panicked, db.has(k))
					}
				case "error":
					if out[i].err == nil || !strings.Contains(out[i].err.Error(), "failed "+k) || db.has(k) {
						t.Errorf("%s: err %v, stored %v; want its own error, not stored", k, out[i].err, db.has(k))
					}
				case "panic":
					if p := fmt.Sprint(out[i].panicked); !strings.Contains(p, "boom "+k) || db.has(k) {
						t.Errorf("%s: panic %q, stored %v; want it raised again, not stored", k, p, db.has(k))
					}
				}
			}
		})
	}
}

// TestLostTransaction: when a savepoint cannot be ended, no member of the
// group is written and each gets an error: a failed one its own.
func TestLostTransaction(t *testing.T) {
	db := &fakeDB{}
	q := Start(db, 128)
	defer q.Close()
	db.loseOnEnd = true // read by the writer only after the held write
	ctxs := []context.Context{context.Background(), context.Background()}
	out, held := submitQueued(t, q, ctxs, []func(store.DriverTx) error{put("a", ""), put("b", "error")})
	if held == nil || !strings.Contains(held.Error(), "end a savepoint") {
		t.Errorf("held write: err %v, want the savepoint's", held)
	}
	if out[0].err == nil || !strings.Contains(out[0].err.Error(), "end a savepoint") {
		t.Errorf("a: err %v, want the savepoint's", out[0].err)
	}
	if out[1].err == nil || !strings.Contains(out[1].err.Error(), "failed b") {
		t.Errorf("b: err %v, want its own", out[1].err)
	}
	if db.has("a") || db.has("b") {
		t.Error("a write of a lost transaction was stored")
	}
}

// TestAbandonedAndClosed: a request whose context ends while it is queued
// runs nothing; after Close, Submit gets Closed; queued writes run first.
func TestAbandonedAndClosed(t *testing.T) {
	db := &fakeDB{}
	q := Start(db, 128)
	gone, cancel := context.WithCancel(context.Background())
	release, waitFirst := hold(t, q)
	errc := make(chan error, 2)
	go func() { errc <- q.Submit(gone, put("gone", "")) }()
	waitLen(q, 1)
	go func() { errc <- q.Submit(context.Background(), put("kept", "")) }()
	waitLen(q, 2)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("abandoned write: err %v, want context.Canceled", err)
	}
	release()
	if err := waitFirst(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Errorf("kept write: %v", err)
	}
	q.Close()
	q.Close()
	if db.has("gone") || !db.has("kept") {
		t.Errorf("stored gone %v, kept %v; want false, true", db.has("gone"), db.has("kept"))
	}
	if err := q.Submit(context.Background(), put("late", "")); !errors.Is(err, errClosed) {
		t.Errorf("after Close: err %v, want Closed's", err)
	}
	if err := q.Submit(gone, put("late", "")); !errors.Is(err, context.Canceled) {
		t.Errorf("done context: err %v, want context.Canceled", err)
	}
}
