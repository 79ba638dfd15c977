package postgres

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pipe is the statement queue of a write transaction. A write whose only
// outcome is its error (an insert, an update of a known row) waits in it;
// the next statement whose result is needed (a read, an update that says
// whether it found its row) goes to the server in one batch with the
// queued ones, in their order, so reads see every earlier write. The write
// function's wrapper (Driver.Write) sends what is left when the function
// returns, so a member of a group learns of its own failed statements
// before its savepoint ends. A queued statement's error is returned by the
// call that sent it, under the queued statement's own description.
type pipe struct {
	conn    *pgxpool.Conn
	pending []queued
	// savepointQueued: the member's savepoint commands are queued, not
	// yet sent (the member has not reached the server).
	savepointQueued bool
	// lost is the error of a savepoint command that failed in a batch:
	// the transaction can no longer be split between members.
	lost error
	// nextEvent is the event id the next InsertEvent takes (see
	// writeTx.Begin); lastEvent the last one taken, 0 when none was.
	nextEvent, lastEvent int64
	// fresh holds, per rule inserted by the current member, the sha256
	// of the texts it inserted since: such a rule had no text before.
	fresh map[string]map[string]bool
	// configVersion is the config counter the transaction began at;
	// configChanged: it changed the config overrides (see configCache).
	configVersion int64
	configChanged bool
}

// queued is a statement waiting in a pipe; op describes it in errors.
type queued struct {
	op, sql string
	args    []any
	// savepoint: a savepoint command, whose failure loses the transaction.
	savepoint bool
}

// maxPending is the most statements a pipe holds before it sends them.
const maxPending = 256

// queue adds a statement, copying the slices among args (the caller may
// reuse them before the statement is sent).
func (p *pipe) queue(op, sql string, args []any) {
	own := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case []string:
			own[i] = slices.Clone(v)
		case []byte:
			own[i] = slices.Clone(v)
		default:
			own[i] = a
		}
	}
	p.pending = append(p.pending, queued{op: op, sql: sql, args: own})
}

// drop forgets the queued statements and what the member inserted.
func (p *pipe) drop() {
	p.pending = p.pending[:0]
	p.savepointQueued = false
	clear(p.fresh)
}

// onlySavepoint reports whether nothing but the member's savepoint
// commands is queued.
func (p *pipe) onlySavepoint() bool {
	return p.savepointQueued && !slices.ContainsFunc(p.pending, func(q queued) bool { return !q.savepoint })
}

// send sends the queued statements, then sql with args unless sql is "",
// in one batch, and reads the queued statements' results. It returns the
// batch positioned on sql's result; on an error the batch is closed and
// the error is that of the first failed statement (dbErr of its op).
func (p *pipe) send(ctx context.Context, sql string, args []any) (pgx.BatchResults, error) {
	b := &pgx.Batch{}
	for _, q := range p.pending {
		b.Queue(q.sql, q.args...)
	}
	if sql != "" {
		b.Queue(sql, args...)
	}
	sent := slices.Clone(p.pending)
	savepointQueued := p.savepointQueued
	p.pending = p.pending[:0]
	p.savepointQueued = false
	br := p.conn.SendBatch(ctx, b)
	for _, q := range sent {
		if _, err := br.Exec(); err != nil {
			br.Close()
			switch {
			case pgconn.SafeToRetry(err):
				// Nothing reached the server (a done context): neither
				// did the savepoint.
				p.savepointQueued = savepointQueued
			case q.savepoint:
				p.lost = err
			}
			return nil, dbErr(q.op, err)
		}
	}
	return br, nil
}

// flush sends the queued statements, unless only the member's savepoint
// is queued (a member that ran no statement needs none).
func (p *pipe) flush(ctx context.Context) error {
	if len(p.pending) == 0 || p.onlySavepoint() {
		return nil
	}
	br, err := p.send(ctx, "", nil)
	if err != nil {
		return err
	}
	return br.Close()
}

// Exec, Query and QueryRow make a pipe a querier: each sends the queued
// statements along with its own.

func (p *pipe) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if len(p.pending) == 0 {
		return p.conn.Exec(ctx, sql, args...)
	}
	br, err := p.send(ctx, sql, args)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

func (p *pipe) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if len(p.pending) == 0 {
		return p.conn.Query(ctx, sql, args...)
	}
	br, err := p.send(ctx, sql, args)
	if err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return &batchRows{Rows: rows, br: br}, nil
}

func (p *pipe) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if len(p.pending) == 0 {
		return p.conn.QueryRow(ctx, sql, args...)
	}
	rows, err := p.Query(ctx, sql, args...)
	return firstRow{rows: rows, err: err}
}

// batchRows are the rows of a batch's last statement; closing them closes
// the batch.
type batchRows struct {
	pgx.Rows
	br pgx.BatchResults
}

func (r *batchRows) Close() {
	r.Rows.Close()
	r.br.Close()
}

// firstRow is the pgx.Row of a query's first row (pgx.ErrNoRows when it
// returned none).
type firstRow struct {
	rows pgx.Rows
	err  error
}

func (r firstRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}
