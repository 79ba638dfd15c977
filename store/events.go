package store

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// History page sizes.
const (
	DefaultHistoryLimit = 100
	MaxHistoryLimit     = 10000
)

// Event types the store accepts beyond engine's: a candidate that became
// active by itself, and an agent acting against a rule.
const (
	eventPromotion engine.EventType = "promotion"
	eventViolation engine.EventType = "violation"
)

func validEventType(t engine.EventType) bool {
	switch t {
	case engine.EventCreation, engine.EventReinforcement, engine.EventCounterexample,
		engine.EventManualOverride, engine.EventConfirmation, eventPromotion, eventViolation:
		return true
	}
	return false
}

// AppendEvent appends ev to its rule's receipt trail and returns its id.
// ev.EventID is ignored. ev.Alpha and ev.Beta should be the rule's values
// after the event; when both are 0 the rule's current values are used. A zero
// At is now. The event does not change the rule: save it with SaveRule.
// Errors: EINVALID for an unknown event type, a bad scope or a bad score,
// ENOTFOUND for an unknown rule.
func (t *Tx) AppendEvent(ev engine.Event) (int64, error) {
	if !validEventType(ev.EventType) {
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
// normalised scope, and sets ev.EventID: a zero At is now, the polarity
// follows the event type (a confirmation keeps its own, which must be 1 or
// -1). Errors: EINVALID for a bad polarity of a confirmation or a score that
// is not a finite number ≥ -1.
func (t *Tx) InsertEvent(ev *engine.Event) (int64, error) {
	if err := checkEventRow(ev); err != nil {
		return 0, err
	}
	if ev.At.IsZero() {
		ev.At = time.Now()
	}
	return t.dt.InsertEvent(ev)
}

// checkEventRow checks the score of ev, when it has one (a finite number
// ≥ -1), and sets its polarity from its type: a reinforcement's is 1, a
// counterexample's -1, a confirmation keeps its own, which must be 1 or -1,
// any other event has none. Errors: EINVALID naming what is wrong.
func checkEventRow(ev *engine.Event) error {
	if ev.Score != nil {
		if err := validateFloat("score", *ev.Score, -1); err != nil {
			return err
		}
	}
	switch ev.EventType {
	case engine.EventReinforcement:
		ev.Polarity = engine.Reinforce
	case engine.EventCounterexample:
		ev.Polarity = engine.Counter
	case engine.EventConfirmation:
		if ev.Polarity != engine.Counter && ev.Polarity != engine.Reinforce {
			return engine.Errorf(engine.EINVALID, "a confirmation event needs a polarity of 1 or -1")
		}
	default:
		ev.Polarity = 0
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
