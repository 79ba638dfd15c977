package sqlite

import (
	"database/sql"
	"errors"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

const pendingCols = `id, text, scope, polarity, coalesce(frame_id, ''), coalesce(agent_output, ''), candidates,
	coalesce(model, ''), status, coalesce(rule_id, ''), created_at, coalesce(resolved_at, '')`

var (
	qPendingInsert = sqlq(`INSERT INTO pending_confirmations (text, scope, polarity, frame_id, agent_output, candidates,
	model, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)`)
	qPendingGet     = sqlq(`SELECT ` + pendingCols + ` FROM pending_confirmations WHERE id = ?`)
	qPendingResolve = sqlq(`UPDATE pending_confirmations SET status = ?, rule_id = ?, resolved_at = ? WHERE id = ? AND status = 'pending'`)
	qPendingList    = sqlq(`SELECT ` + pendingCols + ` FROM pending_confirmations WHERE ?1 = '' OR status = ?1 ORDER BY id LIMIT ?2`)
)

func (r runner) Pending(id int64) (engine.Pending, bool, error) {
	p, err := sqldriver.ScanPending(r.queryRow(qPendingGet, id))
	if errors.Is(err, sql.ErrNoRows) {
		return engine.Pending{}, false, nil
	}
	return p, err == nil, dbErr("load pending confirmation", err)
}

func (r runner) ListPending(status string, limit int) ([]engine.Pending, error) {
	return sqldriver.Collect(r.scan, "list pending confirmations", qPendingList, []any{status, limit}, sqldriver.ScanPending)
}

func (r runner) InsertPending(p engine.Pending) (int64, error) {
	res, err := r.exec(qPendingInsert, sqldriver.PendingArgs(&p)...)
	if err != nil {
		return 0, dbErr("create pending confirmation", err)
	}
	id, err := res.LastInsertId()
	return id, dbErr("create pending confirmation", err)
}

func (r runner) ResolvePending(id int64, status, ruleID string, at time.Time) (bool, error) {
	return r.affected("resolve pending confirmation", qPendingResolve, status, sqldriver.NullStr(ruleID), sqldriver.FormatTime(at), id)
}
