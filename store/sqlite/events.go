package sqlite

import (
	"database/sql"
	"time"

	"github.com/lexsona/lexsona/engine"
)

const eventCols = `event_id, rule_id, event_type, coalesce(user_text, ''), coalesce(agent_output, ''), coalesce(frame_id, ''),
	scope, coalesce(decision, ''), score, coalesce(candidates, ''), coalesce(model, ''), coalesce(detail, ''), polarity, alpha, beta, at`

var (
	qEventInsert = sqlq(`INSERT INTO persona_events (rule_id, event_type, user_text, agent_output, frame_id, scope,
	decision, score, candidates, model, detail, polarity, alpha, beta, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	qEventsPage   = sqlq(`SELECT ` + eventCols + ` FROM persona_events WHERE rule_id = ? AND event_id > ? ORDER BY event_id LIMIT ?`)
	qCounterTags  = sqlq(`SELECT tag, n FROM counterexample_tags WHERE rule_id = ?`)
	qProposedTags = sqlq(`SELECT exception_tag FROM persona_rules WHERE exception_of = ?1 AND exception_tag IS NOT NULL
	UNION SELECT tag FROM exception_rejections WHERE parent_id = ?1`)
	qRejectionPut = sqlq(`INSERT INTO exception_rejections (parent_id, tag, rejected_at) VALUES (?, ?, ?)
	ON CONFLICT (parent_id, tag) DO NOTHING`)
	qRejectionDelete = sqlq(`DELETE FROM exception_rejections WHERE parent_id = ? AND tag = ?`)
	// MoveRuleRows' statements, each run with (into, from).
	qEmbeddingsMove = sqlq(`UPDATE OR IGNORE persona_embeddings SET rule_id = ? WHERE rule_id = ?`)
	qEventsMove     = sqlq(`UPDATE persona_events SET rule_id = ? WHERE rule_id = ?`)
	qExceptionsMove = sqlq(`UPDATE persona_rules SET exception_of = ? WHERE exception_of = ?`)
	qRejectionsMove = sqlq(`INSERT INTO exception_rejections (parent_id, tag, rejected_at)
	SELECT ?1, tag, rejected_at FROM exception_rejections WHERE parent_id = ?2 ORDER BY tag ON CONFLICT DO NOTHING`)
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

func (r runner) Events(ruleID string, afterID int64, limit int) ([]engine.Event, error) {
	out := []engine.Event{}
	err := r.scan("read history", qEventsPage, []any{ruleID, afterID, limit}, func(sc scanner) error {
		e, err := scanEvent(sc)
		out = append(out, e)
		return err
	})
	return out, err
}

func (r runner) InsertEvent(ev *engine.Event) (int64, error) {
	var score any
	if ev.Score != nil {
		score = *ev.Score
	}
	res, err := r.exec(qEventInsert, ev.RuleID, string(ev.EventType), nullStr(ev.UserText), nullStr(ev.AgentOutput),
		nullStr(ev.FrameID), scopeJSON(ev.Scope), nullStr(ev.Decision), score, candidatesJSON(ev.Candidates), nullStr(ev.Model),
		nullStr(ev.Detail), int(ev.Polarity), ev.Alpha, ev.Beta, fmtTime(ev.At))
	if err != nil {
		return 0, dbErr("append event", err)
	}
	id, err := res.LastInsertId()
	ev.EventID = id
	return id, dbErr("append event", err)
}

// CounterexampleTags reads the counts a trigger keeps as counterexamples are
// appended (see 001_init.sql).
func (r runner) CounterexampleTags(ruleID string) (map[string]int, error) {
	out := map[string]int{}
	err := r.scan("read counterexample tags", qCounterTags, []any{ruleID}, func(sc scanner) error {
		var tag string
		var n int
		err := sc.Scan(&tag, &n)
		out[tag] = n
		return err
	})
	return out, err
}

func (r runner) ExceptionTags(parentID string) ([]string, error) {
	out := []string{}
	err := r.scan("read exception tags", qProposedTags, []any{parentID}, func(sc scanner) error {
		var tag string
		err := sc.Scan(&tag)
		out = append(out, tag)
		return err
	})
	return out, err
}

func (r runner) PutRejection(parentID, tag string, at time.Time) error {
	return r.execErr("reject exception", qRejectionPut, parentID, tag, fmtTime(at))
}

func (r runner) DeleteRejection(parentID, tag string) error {
	return r.execErr("forget exception rejection", qRejectionDelete, parentID, tag)
}

// MoveRuleRows moves from's vectors (into's texts must exist: the caller
// copies them first), events, exception links and rejections to into.
func (r runner) MoveRuleRows(from, into string) error {
	for _, step := range []struct{ what, q string }{
		{"move embeddings", qEmbeddingsMove}, {"move events", qEventsMove},
		{"move exceptions", qExceptionsMove}, {"move rejections", qRejectionsMove},
	} {
		if err := r.execErr("merge: "+step.what, step.q, into, from); err != nil {
			return err
		}
	}
	return nil
}
