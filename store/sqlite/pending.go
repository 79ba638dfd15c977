package sqlite

import (
	"database/sql"
	"errors"
	"time"

	"github.com/lexsona/lexsona/engine"
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

func scanPending(sc scanner) (engine.Pending, error) {
	var p engine.Pending
	var scope, cands, created, resolved string
	var pol int
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
	p, err := scanPending(r.queryRow(qPendingGet, id))
	if errors.Is(err, sql.ErrNoRows) {
		return engine.Pending{}, false, nil
	}
	return p, err == nil, dbErr("load pending confirmation", err)
}

func (r runner) ListPending(status string, limit int) ([]engine.Pending, error) {
	out := []engine.Pending{}
	err := r.scan("list pending confirmations", qPendingList, []any{status, limit}, func(sc scanner) error {
		p, err := scanPending(sc)
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
	res, err := r.exec(qPendingInsert, p.Text, scopeJSON(p.Scope), int(p.Polarity), nullStr(p.FrameID), nullStr(p.AgentOutput),
		cands, nullStr(p.Model), fmtTime(p.CreatedAt))
	if err != nil {
		return 0, dbErr("create pending confirmation", err)
	}
	id, err := res.LastInsertId()
	return id, dbErr("create pending confirmation", err)
}

func (r runner) ResolvePending(id int64, status, ruleID string, at time.Time) (bool, error) {
	return r.affected("resolve pending confirmation", qPendingResolve, status, nullStr(ruleID), fmtTime(at), id)
}
