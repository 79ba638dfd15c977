package postgres

import (
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// stmts are the shared statements in PostgreSQL's dialect: $n
// placeholders, JSON columns (jsonb) read as text, tag lists as text[],
// new ids read with RETURNING; a trigger stamps a rule row's row_version.
var stmts = sqldriver.NewStatements(sqldriver.Dialect{
	Param:       sqldriver.DollarParam,
	AsText:      "::text",
	ReturningID: true,
	Tags:        sqldriver.ArrayTags{},
})

// queries are the store's reads and writes on a runner. On a write
// transaction some of them use its statement queue (pipe): an event takes
// its id from the transaction, a text of a rule inserted in it is known to
// be new, and the config overrides are read from the driver's cache while
// the transaction has not changed them.
type queries struct {
	sqldriver.Queries[runner]
}

// on returns the queries run on r.
func on(r runner) queries { return queries{sqldriver.Queries[runner]{C: r, S: stmts}} }

// InsertEvent numbers the event from the write transaction's next event id
// and queues its insert (see writeBackend.Begin); elsewhere the database
// numbers it.
func (x queries) InsertEvent(ev *engine.Event) (int64, error) {
	p := x.C.p
	if p == nil {
		return x.Queries.InsertEvent(ev)
	}
	id := p.nextEvent
	if err := x.LaterEvent(ev, id); err != nil {
		return 0, err
	}
	p.nextEvent, p.lastEvent = id+1, id
	return id, nil
}

// InsertRule queues the insert; the rule, new, has no text yet (see
// InsertRuleText).
func (x queries) InsertRule(row store.RuleRow, at time.Time) error {
	if err := x.Queries.InsertRule(row, at); err != nil {
		return err
	}
	if x.C.p != nil {
		x.C.p.fresh[row.RuleID] = map[string]bool{}
	}
	return nil
}

// InsertRuleText queues the insert of a text of a rule the member inserted
// (which had no text but those inserted since: whether this one is new is
// known); any other waits for the server's answer.
func (x queries) InsertRuleText(t store.RuleText, at time.Time) (bool, error) {
	if x.C.p != nil {
		if texts, ok := x.C.p.fresh[t.RuleID]; ok {
			if texts[t.SHA256] {
				return false, nil
			}
			if err := x.LaterRuleText(t, at); err != nil {
				return false, err
			}
			texts[t.SHA256] = true
			return true, nil
		}
	}
	return x.Queries.InsertRuleText(t, at)
}

// The writes that may move or delete texts stop InsertRuleText from
// answering for the rules the member inserted.

func (x queries) DeleteRuleText(ruleID, sha256 string) error {
	x.forgetFresh()
	return x.Queries.DeleteRuleText(ruleID, sha256)
}

func (x queries) RenameRule(from, to string) error {
	x.forgetFresh()
	return x.Queries.RenameRule(from, to)
}

func (x queries) DeleteRule(id string) error {
	x.forgetFresh()
	return x.Queries.DeleteRule(id)
}

func (x queries) MoveRuleRows(from, into string) error {
	x.forgetFresh()
	return x.Queries.MoveRuleRows(from, into)
}

func (x queries) forgetFresh() {
	if x.C.p != nil {
		clear(x.C.p.fresh)
	}
}

// PutConfig and DeleteConfig make the rest of the write transaction read
// the config overrides from the database (see configCache).

func (x queries) PutConfig(key, value string, at time.Time) error {
	x.configChanged()
	return x.Queries.PutConfig(key, value, at)
}

func (x queries) DeleteConfig(key string) error {
	x.configChanged()
	return x.Queries.DeleteConfig(key)
}

func (x queries) configChanged() {
	if x.C.p != nil {
		x.C.p.configChanged = true
	}
}
