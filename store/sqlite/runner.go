package sqlite

import (
	"context"
	"database/sql"

	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// runner runs statements on a transaction (tx set) or a pool (pool set),
// using the prepared statement of q when there is one (see prepare). It is
// the connection the shared statements run on (sqldriver.Conn): queries
// over it are the driver's store.Reader and, on the write transaction, its
// store.DriverTx.
type runner struct {
	ctx      context.Context
	detached context.Context // ctx without its cancellation (see sctx)
	tx       *sql.Tx
	pool     *sql.DB
	stmts    *stmtSet
	// bound are the statements of stmts bound to tx so far, reused for
	// the rest of the transaction: database/sql keeps every statement
	// bound to a transaction until it ends, so binding one at each use
	// would hold memory in proportion to the statements a transaction
	// runs (an import's millions). nil: bind at each use (a read
	// transaction's few statements).
	bound map[string]*sql.Stmt
	d     *Driver
}

// queries are the store's reads and writes on a runner.
type queries = sqldriver.Queries[runner]

// on returns the queries run on r.
func on(r runner) queries { return queries{C: r, S: stmts} }

// Write runs fn on the single write connection, possibly in one transaction
// with other callers' functions, each in a savepoint (group commit: see
// write.go), and returns once the commit holding its writes returned.
// Errors: EUNAVAILABLE when another process holds the lock past
// busy_timeout or for a fault of the file (the read-only fault at once on a
// file opened read-only), context errors when ctx ended before fn started,
// internal errors (a failed commit: nothing was written; a closed database).
func (d *Driver) Write(ctx context.Context, fn func(store.DriverTx) error) error {
	if d.readOnly {
		if err := ctx.Err(); err != nil {
			return dbErr("begin a write transaction", err)
		}
		return d.readOnlyErr()
	}
	return d.writer.Submit(ctx, fn)
}

// Read runs fn in one read transaction on the read pool, so that all its
// queries see the same committed state. Its BEGIN (deferred: it waits for no
// lock) runs without ctx's cancellation, like every statement (see
// runner.sctx); a done ctx fails it at once.
func (d *Driver) Read(ctx context.Context, fn func(store.Reader) error) error {
	return d.readTx(ctx, func(r runner) error { return fn(on(r)) })
}

func (d *Driver) readTx(ctx context.Context, fn func(r runner) error) error {
	if err := ctx.Err(); err != nil {
		return dbErr("begin a read transaction", err)
	}
	d.rstmt.ready(ctx)
	sqlTx, err := d.read.BeginTx(context.WithoutCancel(ctx), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return dbErr("begin a read transaction", err)
	}
	defer sqlTx.Rollback()
	return fn(d.newRunner(ctx, sqlTx, nil, d.rstmt))
}

// Reader returns queries on the read pool, outside any transaction.
func (d *Driver) Reader(ctx context.Context) store.Reader { return on(d.reader(ctx)) }

func (d *Driver) reader(ctx context.Context) runner {
	d.rstmt.ready(ctx)
	return d.newRunner(ctx, nil, d.read, d.rstmt)
}

// newRunner returns a runner with ctx on tx, or on pool when tx is nil.
func (d *Driver) newRunner(ctx context.Context, tx *sql.Tx, pool *sql.DB, stmts *stmtSet) runner {
	return runner{ctx: ctx, detached: context.WithoutCancel(ctx), tx: tx, pool: pool, stmts: stmts, d: d}
}

// sctx is the context a statement runs with: r.ctx without its cancellation
// while r.ctx is live, r.ctx itself once it is done (the statement then
// fails at once with its error). For every statement run with a context that
// can end, the driver (modernc.org/sqlite) starts a goroutine that waits to
// interrupt it; the store's statements take microseconds, so that goroutine
// (and the thread wake-ups of scheduling it, several per request) bought
// nothing but latency. A cancelled request still stops at its next
// statement; a statement already running finishes.
func (r runner) sctx() context.Context {
	if r.ctx.Err() != nil {
		return r.ctx
	}
	return r.detached
}

func (r runner) stmt(ctx context.Context, q string) *sql.Stmt {
	s := r.stmts.get(q)
	if s == nil || r.tx == nil {
		return s
	}
	if b := r.bound[q]; b != nil {
		return b
	}
	b := r.tx.StmtContext(ctx, s)
	if r.bound != nil {
		r.bound[q] = b
	}
	return b
}

func (r runner) exec(q string, args ...any) (sql.Result, error) {
	ctx := r.sctx()
	if s := r.stmt(ctx, q); s != nil {
		return s.ExecContext(ctx, args...)
	}
	if r.tx != nil {
		return r.tx.ExecContext(ctx, q, args...)
	}
	return r.pool.ExecContext(ctx, q, args...)
}

func (r runner) query(q string, args ...any) (*sql.Rows, error) {
	ctx := r.sctx()
	if s := r.stmt(ctx, q); s != nil {
		return s.QueryContext(ctx, args...)
	}
	if r.tx != nil {
		return r.tx.QueryContext(ctx, q, args...)
	}
	return r.pool.QueryContext(ctx, q, args...)
}

func (r runner) queryRow(q string, args ...any) *sql.Row {
	ctx := r.sctx()
	if s := r.stmt(ctx, q); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	if r.tx != nil {
		return r.tx.QueryRowContext(ctx, q, args...)
	}
	return r.pool.QueryRowContext(ctx, q, args...)
}
