package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// querier runs statements: the pool (each statement alone) or a
// transaction. pgx prepares and caches every statement per connection.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// runner runs the driver's statements on q with ctx. It is the driver's
// store.Reader and, on a write transaction, its store.DriverTx.
type runner struct {
	ctx context.Context
	q   querier
	d   *Driver
	// inTx: q is a transaction (reads of several statements need none of
	// their own).
	inTx bool
	// detached: statements run without ctx's cancellation while ctx is
	// live (see sctx); set on write transactions.
	detached bool
	// p is the write transaction's statement queue (q is p), nil
	// elsewhere.
	p *pipe
}

// Reader returns a runner on the pool, outside any transaction.
func (d *Driver) Reader(ctx context.Context) store.Reader { return d.reader(ctx) }

func (d *Driver) reader(ctx context.Context) runner { return runner{ctx: ctx, q: d.pool, d: d} }

// Read runs fn in one read-only REPEATABLE READ transaction, so that all
// its queries see the same committed state. Errors: fn's; EUNAVAILABLE when
// the server cannot be reached; context errors.
func (d *Driver) Read(ctx context.Context, fn func(store.Reader) error) error {
	return d.readTx(ctx, func(r runner) error { return fn(r) })
}

func (d *Driver) readTx(ctx context.Context, fn func(r runner) error) error {
	if err := ctx.Err(); err != nil {
		return dbErr("begin a read transaction", err)
	}
	tx, err := d.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return dbErr("begin a read transaction", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	return fn(runner{ctx: ctx, q: tx, d: d, inTx: true})
}

// consistent runs fn in r's transaction, or in a read transaction of its
// own when r has none, for reads of several statements.
func (r runner) consistent(fn func(r runner) error) error {
	if r.inTx {
		return fn(r)
	}
	return r.d.readTx(r.ctx, fn)
}

// sctx is the context a statement runs with. On a write transaction it is
// r.ctx without its cancellation while r.ctx is live (a cancelled caller
// must not break the connection other callers' writes share: see
// write.go), r.ctx itself once it is done, which fails the statement at
// once without sending it; statement_timeout bounds a statement. Elsewhere
// it is r.ctx.
func (r runner) sctx() context.Context {
	if !r.detached || r.ctx.Err() != nil {
		return r.ctx
	}
	return context.WithoutCancel(r.ctx)
}

// scan runs q and calls fn for each row; op names what it does in errors.
func (r runner) scan(op, q string, args []any, fn func(row pgx.Rows) error) error {
	if err := r.ctx.Err(); err != nil {
		return dbErr(op, err)
	}
	rows, err := r.q.Query(r.sctx(), q, args...)
	if err != nil {
		return dbErr(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return dbErr(op, err)
		}
	}
	return dbErr(op, rows.Err())
}

// rows is scan for readers of any database's rows (sqldriver.Query).
func (r runner) rows(op, q string, args []any, fn func(sqldriver.Scanner) error) error {
	return r.scan(op, q, args, func(row pgx.Rows) error { return fn(row) })
}

// row runs q, which returns at most one row, into dest; found is false when
// it returned none.
func (r runner) row(op, q string, args []any, dest ...any) (found bool, err error) {
	if err := r.ctx.Err(); err != nil {
		return false, dbErr(op, err)
	}
	err = r.q.QueryRow(r.sctx(), q, args...).Scan(dest...)
	if err == pgx.ErrNoRows {
		return false, nil
	}
	return err == nil, dbErr(op, err)
}

// exec runs q and returns how many rows it changed.
func (r runner) exec(op, q string, args ...any) (int64, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, dbErr(op, err)
	}
	tag, err := r.q.Exec(r.sctx(), q, args...)
	if err != nil {
		return 0, dbErr(op, err)
	}
	return tag.RowsAffected(), nil
}

// execErr runs q and returns only its error.
func (r runner) execErr(op, q string, args ...any) error {
	_, err := r.exec(op, q, args...)
	return err
}

// later runs q, a write whose only outcome is its error: on a write
// transaction it is queued (see pipe) and its error, if any, is returned by
// the call that sends it; elsewhere it runs at once.
func (r runner) later(op, q string, args ...any) error {
	if r.p == nil {
		return r.execErr(op, q, args...)
	}
	if err := r.ctx.Err(); err != nil {
		return dbErr(op, err)
	}
	r.p.queue(op, q, args)
	if len(r.p.pending) >= maxPending {
		return r.p.flush(r.sctx())
	}
	return nil
}
