package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// Page sizes of ListPending.
const (
	DefaultPendingLimit = 100
	MaxPendingLimit     = 10000
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

// CreatePending stores a correction in the confirm band as a pending
// confirmation and returns its id. p.ID, Status, RuleID and ResolvedAt are
// ignored; a zero Polarity means reinforcement and a zero CreatedAt now.
// Errors: EINVALID or ETOOLARGE for a bad text, scope, polarity or frame id.
func (t *Tx) CreatePending(p engine.Pending) (int64, error) {
	if err := engine.ValidateText("correction text", p.Text, engine.MaxUserTextLength); err != nil {
		return 0, err
	}
	if p.AgentOutput != "" {
		if err := engine.ValidateText("agent output", p.AgentOutput, engine.MaxUserTextLength); err != nil {
			return 0, err
		}
	}
	pol, err := engine.ParsePolarity(int(p.Polarity))
	if err != nil {
		return 0, err
	}
	s, err := engine.ParseScope(p.Scope)
	if err != nil {
		return 0, err
	}
	if len(p.FrameID) > 256 {
		return 0, engine.Errorf(engine.EINVALID, "frame id is %d bytes long: at most 256", len(p.FrameID))
	}
	cands := candidatesJSON(p.Candidates)
	if cands == nil {
		cands = "[]"
	}
	res, err := t.exec(qPendingInsert, p.Text, scopeJSON(s), int(pol), nullStr(p.FrameID), nullStr(p.AgentOutput),
		cands, nullStr(p.Model), fmtTime(nowIfZero(p.CreatedAt)))
	if err != nil {
		return 0, dbErr("create pending confirmation", err)
	}
	id, err := res.LastInsertId()
	return id, dbErr("create pending confirmation", err)
}

// GetPending loads a pending confirmation inside the transaction (see DB.GetPending).
func (t *Tx) GetPending(id int64) (engine.Pending, error) { return getPending(t.runner, id) }

// ResolvePending marks a pending confirmation accepted, rejected or new_rule,
// naming the rule it resolved to (ruleID may be empty for rejected). Record
// the evidence in the same transaction. Errors: EINVALID for another status,
// ECONFLICT for a confirmation that is already resolved, ENOTFOUND for an
// unknown id.
func (t *Tx) ResolvePending(id int64, status, ruleID string, at time.Time) error {
	switch status {
	case engine.PendingAccepted, engine.PendingRejected, engine.PendingNewRule:
	default:
		return engine.Errorf(engine.EINVALID, "confirmation status %q: want accepted, rejected or new_rule", status)
	}
	if ruleID != "" {
		if err := engine.ValidateRuleID(ruleID); err != nil {
			return err
		}
	}
	res, err := t.exec(qPendingResolve, status, nullStr(ruleID), fmtTime(nowIfZero(at)), id)
	if err != nil {
		return dbErr("resolve pending confirmation", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	p, err := t.GetPending(id)
	if err != nil {
		return err
	}
	return engine.Errorf(engine.ECONFLICT, "confirmation %d is already resolved (%s)", id, p.Status)
}

func getPending(r runner, id int64) (engine.Pending, error) {
	p, err := scanPending(r.queryRow(qPendingGet, id))
	if errors.Is(err, sql.ErrNoRows) {
		return p, engine.Errorf(engine.ENOTFOUND, "confirmation %d not found", id)
	}
	return p, dbErr("load pending confirmation", err)
}

// GetPending returns the confirmation with that id, resolved or not. Errors:
// ENOTFOUND naming an unknown id.
func (db *DB) GetPending(ctx context.Context, id int64) (engine.Pending, error) {
	return getPending(db.reader(ctx), id)
}

// ListPending lists confirmations with the given status (pending, accepted,
// rejected, new_rule; "" for all), oldest first, at most limit (0 means
// DefaultPendingLimit). Errors: EINVALID for an unknown status or a limit
// below 0 or above MaxPendingLimit.
func (db *DB) ListPending(ctx context.Context, status string, limit int) ([]engine.Pending, error) {
	switch status {
	case "", engine.PendingOpen, engine.PendingAccepted, engine.PendingRejected, engine.PendingNewRule:
	default:
		return nil, engine.Errorf(engine.EINVALID, "confirmation status %q: want pending, accepted, rejected or new_rule", status)
	}
	if limit == 0 {
		limit = DefaultPendingLimit
	}
	if limit < 0 || limit > MaxPendingLimit {
		return nil, engine.Errorf(engine.EINVALID, "limit %d: want 1 to %d", limit, MaxPendingLimit)
	}
	out := []engine.Pending{}
	err := db.reader(ctx).scan(qPendingList, []any{status, limit}, func(sc scanner) error {
		p, err := scanPending(sc)
		out = append(out, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
