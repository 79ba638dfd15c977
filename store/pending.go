package store

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// Page sizes of ListPending.
const (
	DefaultPendingLimit = 100
	MaxPendingLimit     = 10000
)

// CheckPending normalises and checks what a confirmation row may hold:
// its text and agent output, a polarity of 1 or −1, its scope, frame id,
// a status that fits its resolution and the rule it names. Errors:
// EINVALID or ETOOLARGE naming what is wrong.
func CheckPending(p *engine.Pending) error {
	if err := engine.ValidateText("correction text", p.Text, engine.MaxUserTextLength); err != nil {
		return err
	}
	if p.AgentOutput != "" {
		if err := engine.ValidateText("agent output", p.AgentOutput, engine.MaxUserTextLength); err != nil {
			return err
		}
	}
	if p.Instruction != "" {
		if err := engine.ValidateInstruction(p.Instruction); err != nil {
			return err
		}
	}
	if err := p.Polarity.Check(); err != nil {
		return err
	}
	s, err := engine.ParseScope(p.Scope)
	if err != nil {
		return err
	}
	if err := engine.ValidateFrameID(p.FrameID); err != nil {
		return err
	}
	switch p.Status {
	case engine.PendingOpen, engine.PendingAccepted, engine.PendingRejected, engine.PendingNewRule:
	default:
		return engine.Errorf(engine.EINVALID, "confirmation status %.64q: want pending, accepted, rejected or new_rule", p.Status)
	}
	if (p.Status == engine.PendingOpen) != (p.ResolvedAt == nil) {
		return engine.Errorf(engine.EINVALID, "confirmation status %q does not fit its resolution time", p.Status)
	}
	if p.RuleID != "" {
		if err := engine.ValidateRuleID(p.RuleID); err != nil {
			return err
		}
	}
	p.Scope, p.CreatedAt = s, p.CreatedAt.UTC()
	if p.ResolvedAt != nil {
		at := p.ResolvedAt.UTC()
		p.ResolvedAt = &at
	}
	return nil
}

// CreatePending stores a correction in the confirm band as an open
// pending confirmation and returns its id. p.ID, Status, RuleID and
// ResolvedAt are ignored; a zero CreatedAt is the transaction's time.
// Errors: those of CheckPending.
func (t *Tx) CreatePending(p engine.Pending) (int64, error) {
	p.ID, p.Status, p.RuleID, p.ResolvedAt = 0, engine.PendingOpen, "", nil
	return t.InsertPending(p)
}

// InsertPending stores a confirmation as it is, resolved or not (a zero
// CreatedAt is the transaction's time), under a new id, which it returns.
// Errors: those of CheckPending; the store's.
func (t *Tx) InsertPending(p engine.Pending) (int64, error) {
	p.CreatedAt = t.orAt(p.CreatedAt)
	if err := CheckPending(&p); err != nil {
		return 0, err
	}
	id, err := t.dt.InsertPending(p)
	if err != nil || p.Status == engine.PendingOpen {
		return id, err
	}
	if _, err := t.dt.ResolvePending(id, p.Status, p.RuleID, *p.ResolvedAt); err != nil {
		return 0, err
	}
	return id, nil
}

// SeePending counts one more captured prompt for the open confirmation id
// (see engine.Pending.Seen) at at, keeping the higher gate probability.
// Errors: ECONFLICT when it is resolved, ENOTFOUND for an unknown id.
func (t *Tx) SeePending(id int64, gate float64, at time.Time) error {
	done, err := t.dt.SeePending(id, gate, at)
	return t.openOnly(id, done, err)
}

// openOnly is the outcome of a write done only to an open confirmation
// id: err, nil when it was done, else ECONFLICT naming its status, or
// ENOTFOUND when there is none.
func (t *Tx) openOnly(id int64, done bool, err error) error {
	if err != nil || done {
		return err
	}
	p, err := t.GetPending(id)
	if err != nil {
		return err
	}
	return engine.Errorf(engine.ECONFLICT, "confirmation %d is already resolved (%s)", id, p.Status)
}

// ListPending lists confirmations inside the transaction (see DB.ListPending).
func (t *Tx) ListPending(status string, limit int) ([]engine.Pending, error) {
	return t.dt.ListPending(status, limit)
}

// GetPending loads a pending confirmation inside the transaction (see DB.GetPending).
func (t *Tx) GetPending(id int64) (engine.Pending, error) { return getPending(t.dt, id) }

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
	done, err := t.dt.ResolvePending(id, status, ruleID, t.orAt(at))
	return t.openOnly(id, done, err)
}

func getPending(r Reader, id int64) (engine.Pending, error) {
	p, ok, err := r.Pending(id)
	if err == nil && !ok {
		err = engine.Errorf(engine.ENOTFOUND, "confirmation %d not found", id)
	}
	return p, err
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
	return db.reader(ctx).ListPending(status, limit)
}
