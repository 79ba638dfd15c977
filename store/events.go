package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// History page sizes.
const (
	DefaultHistoryLimit = 100
	MaxHistoryLimit     = 10000
)

const eventCols = `event_id, rule_id, event_type, coalesce(user_text, ''), coalesce(agent_output, ''), coalesce(frame_id, ''),
	scope, coalesce(decision, ''), score, coalesce(candidates, ''), coalesce(model, ''), coalesce(detail, ''), polarity, alpha, beta, at`

var (
	qEventInsert = sqlq(`INSERT INTO persona_events (rule_id, event_type, user_text, agent_output, frame_id, scope,
	decision, score, candidates, model, detail, polarity, alpha, beta, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	qEventsPage = sqlq(`SELECT ` + eventCols + ` FROM persona_events WHERE rule_id = ? AND event_id > ? ORDER BY event_id LIMIT ?`)
)

func scanEvent(sc scanner) (engine.Event, error) {
	var e engine.Event
	var et, scope, cands, at string
	var score sql.NullFloat64
	if err := sc.Scan(&e.EventID, &e.RuleID, &et, &e.UserText, &e.AgentOutput, &e.FrameID, &scope, &e.Decision,
		&score, &cands, &e.Model, &e.Detail, &e.Polarity, &e.Alpha, &e.Beta, &at); err != nil {
		return e, err
	}
	e.EventType = engine.EventType(et)
	if score.Valid {
		v := score.Float64
		e.Score = &v
	}
	var err error
	if e.Scope, err = parseScope(scope); err != nil {
		return e, err
	}
	if e.Candidates, err = parseCandidates(cands); err != nil {
		return e, err
	}
	e.At, err = parseTime(at)
	return e, err
}

func validEventType(t engine.EventType) bool {
	switch t {
	case engine.EventCreation, engine.EventReinforcement, engine.EventCounterexample,
		engine.EventManualOverride, engine.EventConfirmation:
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
	if ev.Score != nil {
		if err := validateFloat("score", *ev.Score, -1); err != nil {
			return 0, err
		}
	}
	if ev.Alpha == 0 && ev.Beta == 0 {
		r, err := t.GetRule(ev.RuleID)
		if err != nil {
			return 0, err
		}
		ev.Alpha, ev.Beta = r.Alpha, r.Beta
	} else if ok, err := ruleExists(t.runner, ev.RuleID); err != nil || !ok {
		if err == nil {
			err = engine.Errorf(engine.ENOTFOUND, "rule %q not found", ev.RuleID)
		}
		return 0, err
	}
	ev.Scope = s
	return t.insertEvent(&ev)
}

// insertEvent writes a checked event (normalised scope, existing rule).
func (t *Tx) insertEvent(ev *engine.Event) (int64, error) {
	if ev.At.IsZero() {
		ev.At = time.Now()
	}
	var score any
	if ev.Score != nil {
		score = *ev.Score
	}
	switch ev.EventType {
	case engine.EventReinforcement:
		ev.Polarity = engine.Reinforce
	case engine.EventCounterexample:
		ev.Polarity = engine.Counter
	case engine.EventConfirmation:
		if ev.Polarity != engine.Counter && ev.Polarity != engine.Reinforce {
			return 0, engine.Errorf(engine.EINVALID, "a confirmation event needs a polarity of 1 or -1")
		}
	default:
		ev.Polarity = 0
	}
	res, err := t.exec(qEventInsert, ev.RuleID, string(ev.EventType), nullStr(ev.UserText), nullStr(ev.AgentOutput),
		nullStr(ev.FrameID), scopeJSON(ev.Scope), nullStr(ev.Decision), score, candidatesJSON(ev.Candidates), nullStr(ev.Model),
		nullStr(ev.Detail), int(ev.Polarity), ev.Alpha, ev.Beta, fmtTime(ev.At))
	if err != nil {
		return 0, dbErr("append event", err)
	}
	id, err := res.LastInsertId()
	ev.EventID = id
	return id, dbErr("append event", err)
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
	out := []engine.Event{}
	err := db.readTx(ctx, func(r runner) error {
		if ok, err := ruleExists(r, ruleID); err != nil || !ok {
			if err == nil {
				err = engine.Errorf(engine.ENOTFOUND, "rule %q not found", ruleID)
			}
			return err
		}
		rows, err := r.query(qEventsPage, ruleID, afterEventID, limit)
		if err != nil {
			return dbErr("read history", err)
		}
		defer rows.Close()
		for rows.Next() {
			e, err := scanEvent(rows)
			if err != nil {
				return dbErr("read history", err)
			}
			out = append(out, e)
		}
		return dbErr("read history", rows.Err())
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
