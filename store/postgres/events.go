package postgres

import (
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lexsona/lexsona/engine"
)

const eventCols = `event_id, rule_id, event_type, coalesce(user_text, ''), coalesce(agent_output, ''), coalesce(frame_id, ''),
	scope::text, coalesce(decision, ''), score, coalesce(candidates::text, ''), coalesce(model, ''), coalesce(detail, ''),
	polarity, alpha, beta, at`

const (
	qEventInsert = `INSERT INTO persona_events (rule_id, event_type, user_text, agent_output, frame_id, scope,
	decision, score, candidates, model, detail, polarity, alpha, beta, at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING event_id`
	qEventsPage   = `SELECT ` + eventCols + ` FROM persona_events WHERE rule_id = $1 AND event_id > $2 ORDER BY event_id LIMIT $3`
	qCounterTags  = `SELECT tag, n FROM counterexample_tags WHERE rule_id = $1 AND n > 0`
	qProposedTags = `SELECT exception_tag FROM persona_rules WHERE exception_of = $1 AND exception_tag IS NOT NULL
	UNION SELECT tag FROM exception_rejections WHERE parent_id = $1`
	qRejectionPut = `INSERT INTO exception_rejections (parent_id, tag, rejected_at) VALUES ($1, $2, $3)
	ON CONFLICT (parent_id, tag) DO NOTHING`
	qRejectionDelete = `DELETE FROM exception_rejections WHERE parent_id = $1 AND tag = $2`
	// MoveRuleRows' statements, each run with (into, from). A vector into
	// already has for the same model and text stays with from.
	qEmbeddingsMove = `UPDATE persona_embeddings e SET rule_id = $1 WHERE e.rule_id = $2 AND NOT EXISTS (
	SELECT 1 FROM persona_embeddings x WHERE x.rule_id = $1 AND x.model_id = e.model_id AND x.text_sha256 = e.text_sha256)`
	qEventsMove     = `UPDATE persona_events SET rule_id = $1 WHERE rule_id = $2`
	qExceptionsMove = `UPDATE persona_rules SET exception_of = $1 WHERE exception_of = $2`
	qRejectionsMove = `INSERT INTO exception_rejections (parent_id, tag, rejected_at)
	SELECT $1, tag, rejected_at FROM exception_rejections WHERE parent_id = $2 ORDER BY tag ON CONFLICT DO NOTHING`
)

func scanEvent(sc pgx.Row) (engine.Event, error) {
	var e engine.Event
	var et, scope, cands, at string
	var pol int16
	if err := sc.Scan(&e.EventID, &e.RuleID, &et, &e.UserText, &e.AgentOutput, &e.FrameID, &scope, &e.Decision,
		&e.Score, &cands, &e.Model, &e.Detail, &pol, &e.Alpha, &e.Beta, &at); err != nil {
		return e, err
	}
	e.EventType, e.Polarity = engine.EventType(et), engine.Polarity(pol)
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
	err := r.scan("read history", qEventsPage, []any{ruleID, afterID, limit}, func(row pgx.Rows) error {
		e, err := scanEvent(row)
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
	var id int64
	_, err := r.row("append event", qEventInsert, []any{ev.RuleID, string(ev.EventType), nullStr(ev.UserText),
		nullStr(ev.AgentOutput), nullStr(ev.FrameID), scopeJSON(ev.Scope), nullStr(ev.Decision), score,
		candidatesJSON(ev.Candidates), nullStr(ev.Model), nullStr(ev.Detail), int16(ev.Polarity), ev.Alpha, ev.Beta,
		fmtTime(ev.At)}, &id)
	if err != nil {
		return 0, err
	}
	ev.EventID = id
	return id, nil
}

// CounterexampleTags reads the counts a trigger keeps as counterexamples are
// appended (see 001_init.sql).
func (r runner) CounterexampleTags(ruleID string) (map[string]int, error) {
	out := map[string]int{}
	err := r.scan("read counterexample tags", qCounterTags, []any{ruleID}, func(row pgx.Rows) error {
		var tag string
		var n int
		err := row.Scan(&tag, &n)
		out[tag] = n
		return err
	})
	return out, err
}

func (r runner) ExceptionTags(parentID string) ([]string, error) {
	out := []string{}
	err := r.scan("read exception tags", qProposedTags, []any{parentID}, func(row pgx.Rows) error {
		var tag string
		err := row.Scan(&tag)
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
