package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory/memorytest"
	"github.com/lexsona/lexsona/store/storetest"
)

// TestRecordConcurrent: many clients correcting one rule at once lose no update.
func TestEventsAreAppendOnly(t *testing.T) {
	db, d := mustOpen(t)
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	storetest.MustCreate(t, db, "tool.y", "tool_preference", engine.Scope{})
	memorytest.MustRecord(t, db, engine.Correction{RuleID: "tool.x"})
	for _, q := range []string{
		"UPDATE persona_events SET user_text = 'forged'",
		"UPDATE persona_events SET alpha = 100 WHERE rule_id = 'tool.x'",
		"UPDATE persona_events SET at = '2000-01-01T00:00:00.000000000Z'",
		"UPDATE persona_events SET rule_id = 'tool.y' WHERE rule_id = 'tool.x'", // an established rule's events never move
		"DELETE FROM persona_events WHERE rule_id = 'tool.x'",
		"DELETE FROM persona_rules WHERE rule_id = 'tool.x'", // would orphan its events
	} {
		_, err := d.write.Exec(q)
		if err == nil {
			t.Errorf("%s: accepted", q)
			continue
		}
		if !strings.Contains(err.Error(), "append-only") && !strings.Contains(err.Error(), "FOREIGN KEY") {
			t.Errorf("%s: %v", q, err)
		}
	}
	hist, _ := db.History(context.Background(), "tool.x", 0, 0)
	if len(hist) != 2 || hist[1].UserText != "correction" || hist[1].Alpha != 3 {
		t.Errorf("history changed: %+v", hist)
	}
}

// TestRulesCacheStaysConsistent runs random writes of every kind, through two
// handles on one file, and checks after each that the cached rules of several
// scopes equal what the database says.
// TestRuleVersionStamps checks the triggers of 001_init.sql: every change to
// a rule, whether the statement stamps row_version itself (the store's) or not
// (a hand-written UPDATE, a cascade), moves the 'rules' counter and leaves the
// row stamped with it, so the cache sees it.
func TestRuleVersionStamps(t *testing.T) {
	db, d := mustOpen(t)
	ctx := context.Background()
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	stamp := func() (row, counter int64) {
		t.Helper()
		d.read.QueryRow("SELECT row_version FROM persona_rules WHERE rule_id = 'tool.x'").Scan(&row)
		d.read.QueryRow("SELECT value FROM store_counters WHERE name = 'rules'").Scan(&counter)
		return row, counter
	}
	if _, _, err := db.ScopeRules(ctx, engine.Scope{}); err != nil { // warm the cache
		t.Fatal(err)
	}
	r0, c0 := stamp()
	if r0 != c0 {
		t.Fatalf("after insert: row_version %d, counter %d", r0, c0)
	}
	memorytest.MustRecord(t, db, engine.Correction{RuleID: "tool.x"}) // a stamping statement
	r1, c1 := stamp()
	if c1 != c0+1 || r1 != c1 {
		t.Errorf("after a correction: row_version %d, counter %d; want both %d", r1, c1, c0+1)
	}
	if _, err := d.write.Exec("UPDATE persona_rules SET rule_text = 'edited by hand' WHERE rule_id = 'tool.x'"); err != nil {
		t.Fatal(err)
	}
	r2, c2 := stamp()
	if c2 != c1+1 || r2 != c2 {
		t.Errorf("after a hand edit: row_version %d, counter %d; want both %d", r2, c2, c1+1)
	}
	rules, _, _ := db.ScopeRules(ctx, engine.Scope{})
	if len(rules) != 1 || rules[0].Text != "edited by hand" || rules[0].Alpha != 3 {
		t.Errorf("cache missed a change: %+v", rules)
	}
}
