package store

import (
	"context"

	"github.com/lexsona/lexsona/engine"
)

// History page sizes.
const (
	DefaultHistoryLimit = 100
	MaxHistoryLimit     = 10000
)

// AppendEvent appends ev to its rule's receipt trail and returns its id.
// ev.EventID is ignored. ev.Alpha and ev.Beta should be the rule's values
// after the event; when both are 0 the rule's current values are used. A zero
// At is the transaction's time. The event does not change the rule: save it
// with SaveRule. Errors: EINVALID for an unknown event type, a bad scope, a
// polarity its type does not carry or a bad score, ENOTFOUND for an unknown
// rule.
func (t *Tx) AppendEvent(ev engine.Event) (int64, error) {
	if !ev.EventType.Known() {
		return 0, engine.Errorf(engine.EINVALID, "unknown event type %q", ev.EventType)
	}
	s, err := engine.ParseScope(ev.Scope)
	if err != nil {
		return 0, err
	}
	if ev.Alpha == 0 && ev.Beta == 0 {
		r, err := t.GetRule(ev.RuleID)
		if err != nil {
			return 0, err
		}
		ev.Alpha, ev.Beta = r.Alpha, r.Beta
	} else if err := mustExist(t.dt, ev.RuleID); err != nil {
		return 0, err
	}
	ev.Scope = s
	return t.InsertEvent(&ev)
}

// InsertEvent writes an event of a rule read in the transaction, with a
// normalised scope, and sets ev.EventID; a zero At is the transaction's
// time. Errors: EINVALID for an unknown type, a polarity its type does not
// carry (engine.EventType.Polarity) or a score that is not a finite number
// ≥ -1.
func (t *Tx) InsertEvent(ev *engine.Event) (int64, error) {
	if err := CheckEvent(*ev); err != nil {
		return 0, err
	}
	ev.At = t.orAt(ev.At)
	return t.dt.InsertEvent(ev)
}

// CheckEvent checks what an event row may hold: a known type, the
// polarity its type carries, a score (when it has one) that is a finite
// number ≥ -1. Errors: EINVALID naming what is wrong.
func CheckEvent(ev engine.Event) error {
	if ev.Score != nil {
		if err := validateFloat("score", *ev.Score, -1); err != nil {
			return err
		}
	}
	want, err := ev.EventType.Polarity(ev.Polarity)
	if err != nil {
		return err
	}
	if want != ev.Polarity {
		return engine.Errorf(engine.EINVALID, "a %s event carries polarity %d, not %d", ev.EventType, want, ev.Polarity)
	}
	return nil
}

// History returns up to limit events of a rule with ids after afterEventID,
// in the order they were recorded, by event id (the receipts; page on with
// the last event's id; a backfill is listed where it was recorded, with its
// own time in At). limit 0 means DefaultHistoryLimit. Errors: EINVALID for
// a malformed rule id, a negative cursor or a limit below 0 or above
// MaxHistoryLimit; ENOTFOUND for an unknown rule. Events of a merged
// candidate appear under the rule it was merged into.
func (db *DB) History(ctx context.Context, ruleID string, afterEventID int64, limit int) ([]engine.Event, error) {
	if limit == 0 {
		limit = DefaultHistoryLimit
	}
	if limit < 0 || limit > MaxHistoryLimit {
		return nil, engine.Errorf(engine.EINVALID, "history limit %d: want 1 to %d", limit, MaxHistoryLimit)
	}
	if afterEventID < 0 {
		return nil, engine.Errorf(engine.EINVALID, "history cursor %d: want an event id ≥ 0", afterEventID)
	}
	if err := engine.ValidateRuleID(ruleID); err != nil {
		return nil, err
	}
	var out []engine.Event
	err := db.drv.Read(ctx, func(r Reader) error {
		if err := mustExist(r, ruleID); err != nil {
			return err
		}
		var err error
		out, err = r.Events(ruleID, afterEventID, limit)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
