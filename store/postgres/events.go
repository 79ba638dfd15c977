package postgres

import (
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

const eventCols = `event_id, rule_id, event_type, coalesce(user_text, ''), coalesce(agent_output, ''), coalesce(frame_id, ''),
	scope::text, coalesce(decision, ''), score, coalesce(candidates::text, ''), coalesce(model, ''), coalesce(detail, ''),
	polarity, alpha, beta, at`

const (
	qEventInsert = `INSERT INTO persona_events (rule_id, event_type, user_text, agent_output, frame_id, scope,
	decision, score, candidates, model, detail, polarity, alpha, beta, at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING event_id`
	// qEventInsertID is qEventInsert with the id the write transaction
	// numbered the event with ($16).
	qEventInsertID = `INSERT INTO persona_events (rule_id, event_type, user_text, agent_output, frame_id, scope,
	decision, score, candidates, model, detail, polarity, alpha, beta, at, event_id)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`
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

func (r runner) Events(ruleID string, afterID int64, limit int) ([]engine.Event, error) {
	return sqldriver.Collect(r.rows, "read history", qEventsPage, []any{ruleID, afterID, limit}, sqldriver.ScanEvent)
}

// InsertEvent numbers the event from the write transaction's next event id
// and queues its insert (see writeBackend.Begin).
func (r runner) InsertEvent(ev *engine.Event) (int64, error) {
	if r.p != nil {
		id := r.p.nextEvent
		if err := r.later("append event", qEventInsertID, append(sqldriver.EventArgs(ev), id)...); err != nil {
			return 0, err
		}
		r.p.nextEvent, r.p.lastEvent = id+1, id
		ev.EventID = id
		return id, nil
	}
	var id int64
	_, err := r.row("append event", qEventInsert, sqldriver.EventArgs(ev), &id)
	if err != nil {
		return 0, err
	}
	ev.EventID = id
	return id, nil
}

// CounterexampleTags reads the counts a trigger keeps as counterexamples are
// appended (see 001_init.sql).
func (r runner) CounterexampleTags(ruleID string) (map[string]int, error) {
	return sqldriver.CountTags(r.rows, "read counterexample tags", qCounterTags, []any{ruleID})
}

func (r runner) ExceptionTags(parentID string) ([]string, error) {
	return sqldriver.Collect(r.rows, "read exception tags", qProposedTags, []any{parentID}, sqldriver.ScanString)
}

func (r runner) PutRejection(parentID, tag string, at time.Time) error {
	return r.later("reject exception", qRejectionPut, parentID, tag, sqldriver.FormatTime(at))
}

func (r runner) DeleteRejection(parentID, tag string) error {
	return r.later("forget exception rejection", qRejectionDelete, parentID, tag)
}

// MoveRuleRows moves from's vectors (into's texts must exist: the caller
// copies them first), events, exception links and rejections to into.
func (r runner) MoveRuleRows(from, into string) error {
	r.forgetFresh()
	return sqldriver.MoveRuleRows(r.later, sqldriver.MoveStatements{Embeddings: qEmbeddingsMove, Events: qEventsMove,
		Exceptions: qExceptionsMove, Rejections: qRejectionsMove}, from, into)
}
