package postgres

import (
	"context"
	"errors"

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

// runner runs the driver's statements on q with ctx. It is the connection
// the shared statements run on (sqldriver.Conn): queries over it are the
// driver's store.Reader and, on a write transaction, its store.DriverTx.
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

// Reader returns queries on the pool, outside any transaction.
func (d *Driver) Reader(ctx context.Context) store.Reader { return on(d.reader(ctx)) }

func (d *Driver) reader(ctx context.Context) runner { return runner{ctx: ctx, q: d.pool, d: d} }

// Read runs fn in one read-only REPEATABLE READ transaction, so that all
// its queries see the same committed state. Errors: fn's; EUNAVAILABLE when
// the server cannot be reached; context errors.
func (d *Driver) Read(ctx context.Context, fn func(store.Reader) error) error {
	return d.readTx(ctx, func(r runner) error { return fn(on(r)) })
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

// Consistent runs fn in r's transaction, or in a read transaction of its
// own when r has none, for reads of several statements.
func (r runner) Consistent(fn func(r runner) error) error {
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

// Query runs q and calls fn for each row; op names what it does in errors.
func (r runner) Query(op, q string, args []any, fn func(sqldriver.Scanner) error) error {
	if err := r.ctx.Err(); err != nil {
		return dbErr(op, err)
	}
	rows, err := r.q.Query(r.sctx(), q, args...)
	if err != nil {
		return dbErr(op, err)
	}
	defer rows.Close()
	return dbErr(op, sqldriver.Each(rows, fn))
}

// QueryRow runs q, which returns at most one row (none once ctx is done:
// the Scan then returns ctx's error).
func (r runner) QueryRow(q string, args ...any) sqldriver.Scanner {
	if err := r.ctx.Err(); err != nil {
		return errRow{err}
	}
	return r.q.QueryRow(r.sctx(), q, args...)
}

// errRow is a row whose Scan fails with err.
type errRow struct{ err error }

func (e errRow) Scan(...any) error { return e.err }

// NoRows reports whether err is a Scan's error of a query that returned no
// row.
func (runner) NoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// Exec runs q and returns how many rows it changed.
func (r runner) Exec(op, q string, args ...any) (int64, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, dbErr(op, err)
	}
	tag, err := r.q.Exec(r.sctx(), q, args...)
	if err != nil {
		return 0, dbErr(op, err)
	}
	return tag.RowsAffected(), nil
}

// Later runs q, a write whose only outcome is its error: on a write
// transaction it is queued (see pipe) and its error, if any, is returned by
// the call that sends it; elsewhere it runs at once.
func (r runner) Later(op, q string, args ...any) error {
	if r.p == nil {
		_, err := r.Exec(op, q, args...)
		return err
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

// InsertID runs q, an insert RETURNING its id column, and returns the id.
func (r runner) InsertID(op, q string, args ...any) (int64, error) {
	var id int64
	err := r.QueryRow(q, args...).Scan(&id)
	return id, dbErr(op, err)
}

// ScanBlob scans the row, skipping its last column, and returns that
// column's bytes as received (bytea in binary format: the bytes themselves).
func (runner) ScanBlob(sc sqldriver.Scanner, dest []any) ([]byte, error) {
	dest[len(dest)-1] = nil
	if err := sc.Scan(dest...); err != nil {
		return nil, err
	}
	return sc.(pgx.Rows).RawValues()[len(dest)-1], nil
}

// Err maps the error op met (dbErr).
func (runner) Err(op string, err error) error { return dbErr(op, err) }
