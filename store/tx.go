package store

import (
	"context"
	"database/sql"
)

// queries lists the statements prepared once per connection at Open (see
// sqlq); anything else is prepared per call.
var queries []string

// sqlq registers q for preparation at Open and returns it unchanged, so hot
// statements are compiled once per connection instead of once per call.
func sqlq(q string) string {
	queries = append(queries, q)
	return q
}

// runner runs statements on a transaction (tx set) or a pool (pool set),
// using the prepared statement of q when there is one.
type runner struct {
	ctx   context.Context
	tx    *sql.Tx
	pool  *sql.DB
	stmts map[string]*sql.Stmt
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
	return context.WithoutCancel(r.ctx)
}

func (r runner) stmt(ctx context.Context, q string) *sql.Stmt {
	s := r.stmts[q]
	if s != nil && r.tx != nil {
		return r.tx.StmtContext(ctx, s)
	}
	return s
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

// prepared returns a statement for q bound to the runner's transaction, for
// loops that run q many times (SyncDefinitions, PutEmbeddings). The caller
// closes it.
func (r runner) prepared(q string) (*sql.Stmt, error) {
	if s := r.stmts[q]; s != nil && r.tx != nil {
		return r.tx.StmtContext(r.ctx, s), nil
	}
	if r.tx != nil {
		return r.tx.PrepareContext(r.ctx, q)
	}
	return r.pool.PrepareContext(r.ctx, q)
}

// Tx is one write transaction, handed to the function given to DB.Write.
// Its methods must not be used after that function returns. Errors follow the
// package conventions: *engine.Error for what the caller can act on, wrapped
// internal errors otherwise; any error should make the function return it, so
// that the transaction rolls back.
type Tx struct {
	runner
	db *DB
}
