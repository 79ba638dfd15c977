package postgres

import (
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lexsona/lexsona/engine"
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

func scanPending(sc pgx.Row) (engine.Pending, error) {
	var p engine.Pending
	var scope, cands, created, resolved string
	var pol int16
	if err := sc.Scan(&p.ID, &p.Text, &scope, &pol, &p.FrameID, &p.AgentOutput, &cands, &p.Model, &p.Status,
		&p.RuleID, &created, &resolved); err != nil {
		return p, err
	}
	p.Polarity = engine.Polarity(pol)
	var err error
	if p.Scope, err = parseScope(scope); err != nil {
		return p, err
	}
	if p.Candidates, err = parseCandidates(cands); err != nil {
		return p, err
	}
	if p.Candidates == nil {
		p.Candidates = []engine.Candidate{}
	}
	if p.CreatedAt, err = parseTime(created); err != nil {
		return p, err
	}
	if resolved != "" {
		t, err := parseTime(resolved)
		if err != nil {
			return p, err
		}
		p.ResolvedAt = &t
	}
	return p, nil
}

func (r runner) Pending(id int64) (engine.Pending, bool, error) {
	op := "load pending confirmation"
	if err := r.ctx.Err(); err != nil {
		return engine.Pending{}, false, dbErr(op, err)
	}
	p, err := scanPending(r.q.QueryRow(r.sctx(), qPendingGet, id))
	if err == pgx.ErrNoRows {
		return engine.Pending{}, false, nil
	}
	return p, err == nil, dbErr(op, err)
}

func (r runner) ListPending(status string, limit int) ([]engine.Pending, error) {
	out := []engine.Pending{}
	err := r.scan("list pending confirmations", qPendingList, []any{status, limit}, func(row pgx.Rows) error {
		p, err := scanPending(row)
		out = append(out, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (r runner) InsertPending(p engine.Pending) (int64, error) {
	cands := candidatesJSON(p.Candidates)
	if cands == nil {
		cands = "[]"
	}
	var id int64
	_, err := r.row("create pending confirmation", qPendingInsert, []any{p.Text, scopeJSON(p.Scope), int16(p.Polarity),
		nullStr(p.FrameID), nullStr(p.AgentOutput), cands, nullStr(p.Model), fmtTime(p.CreatedAt)}, &id)
	return id, err
}

func (r runner) ResolvePending(id int64, status, ruleID string, at time.Time) (bool, error) {
	n, err := r.exec("resolve pending confirmation", qPendingResolve, status, nullStr(ruleID), fmtTime(at), id)
	return n > 0, err
}
