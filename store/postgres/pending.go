package postgres

import (
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

const pendingCols = `id, text, scope::text, polarity, coalesce(frame_id, ''), coalesce(agent_output, ''), candidates::text,
	coalesce(model, ''), status, coalesce(rule_id, ''), created_at, coalesce(resolved_at, '')`

const (
	qPendingInsert = `INSERT INTO pending_confirmations (text, scope, polarity, frame_id, agent_output, candidates,
	model, status, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8) RETURNING id`
	qPendingGet     = `SELECT ` + pendingCols + ` FROM pending_confirmations WHERE id = $1`
	qPendingResolve = `UPDATE pending_confirmations SET status = $1, rule_id = $2, resolved_at = $3 WHERE id = $4 AND status = 'pending'`
	qPendingList    = `SELECT ` + pendingCols + ` FROM pending_confirmations WHERE $1 = '' OR status = $1 ORDER BY id LIMIT $2`
)

func (r runner) Pending(id int64) (engine.Pending, bool, error) {
	op := "load pending confirmation"
	if err := r.ctx.Err(); err != nil {
		return engine.Pending{}, false, dbErr(op, err)
	}
	p, err := sqldriver.ScanPending(r.q.QueryRow(r.sctx(), qPendingGet, id))
	if err == pgx.ErrNoRows {
		return engine.Pending{}, false, nil
	}
	return p, err == nil, dbErr(op, err)
}

func (r runner) ListPending(status string, limit int) ([]engine.Pending, error) {
	return sqldriver.Collect(r.rows, "list pending confirmations", qPendingList, []any{status, limit}, sqldriver.ScanPending)
}

func (r runner) InsertPending(p engine.Pending) (int64, error) {
	var id int64
	_, err := r.row("create pending confirmation", qPendingInsert, sqldriver.PendingArgs(&p), &id)
	return id, err
}

func (r runner) ResolvePending(id int64, status, ruleID string, at time.Time) (bool, error) {
	n, err := r.exec("resolve pending confirmation", qPendingResolve, status, sqldriver.NullStr(ruleID), sqldriver.FormatTime(at), id)
	return n > 0, err
}
