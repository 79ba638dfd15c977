package sqlite

import (
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
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

func (r runner) Events(ruleID string, afterID int64, limit int) ([]engine.Event, error) {
	return sqldriver.Collect(r.scan, "read history", qEventsPage, []any{ruleID, afterID, limit}, sqldriver.ScanEvent)
}

func (r runner) InsertEvent(ev *engine.Event) (int64, error) {
	res, err := r.exec(qEventInsert, sqldriver.EventArgs(ev)...)
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
	return sqldriver.CountTags(r.scan, "read counterexample tags", qCounterTags, []any{ruleID})
}

func (r runner) ExceptionTags(parentID string) ([]string, error) {
	return sqldriver.Collect(r.scan, "read exception tags", qProposedTags, []any{parentID}, sqldriver.ScanString)
}

func (r runner) PutRejection(parentID, tag string, at time.Time) error {
	return r.execErr("reject exception", qRejectionPut, parentID, tag, sqldriver.FormatTime(at))
}

func (r runner) DeleteRejection(parentID, tag string) error {
	return r.execErr("forget exception rejection", qRejectionDelete, parentID, tag)
}

// MoveRuleRows moves from's vectors (into's texts must exist: the caller
// copies them first), events, exception links and rejections to into.
func (r runner) MoveRuleRows(from, into string) error {
	return sqldriver.MoveRuleRows(r.execErr, sqldriver.MoveStatements{Embeddings: qEmbeddingsMove, Events: qEventsMove,
		Exceptions: qExceptionsMove, Rejections: qRejectionsMove}, from, into)
}
