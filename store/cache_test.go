package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
)

// TestRulesCacheStaysConsistent runs random writes of every kind, through two
// handles on one file, and checks after each that the cached rules of several
// scopes equal what the database says.
func TestRulesCacheStaysConsistent(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	other, err := Open(ctx, db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	scopes := []engine.Scope{{}, {Environment: "work"}, {Environment: "work", Project: "api"}, {Project: "api", AgentFamily: "claude"}}
	views := []engine.Scope{{}, {Environment: "work"}, {Environment: "work", Project: "api", AgentFamily: "claude"}, {Environment: "home", Project: "api"}}
	rng := rand.New(rand.NewPCG(7, 11))
	next := 0
	okOps := map[string]int{}
	defer func() { t.Logf("successful writes: %v", okOps) }()
	ids := func(h *DB) []string {
		rs, err := h.ListRules(ctx, RuleFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, r.RuleID)
		}
		return out
	}
	pick := func(h *DB) string {
		all := ids(h)
		if len(all) == 0 {
			return "none.at-all"
		}
		return all[rng.IntN(len(all))]
	}
	for step := 0; step < 300; step++ {
		h := db
		if rng.IntN(3) == 0 {
			h = other
		}
		var what string
		var err error
		switch op := rng.IntN(9); op {
		case 0, 1:
			next++
			what = "create"
			r := engine.NewRule(fmt.Sprintf("r.n%03d", next), "tool_preference", engine.SeverityShould, "text", scopes[rng.IntN(len(scopes))], engine.DefaultConfig(), t0)
			if rng.IntN(4) == 0 {
				r.Status = engine.StatusCandidate
			}
			_, err = h.CreateRule(ctx, r)
		case 2, 3:
			what = "record"
			_, _, err = h.Record(ctx, engine.Correction{RuleID: pick(h), Polarity: engine.Reinforce, UserText: "x", At: t0.Add(time.Duration(step) * time.Minute)})
		case 4:
			what = "archive"
			_, err = h.ArchiveRule(ctx, pick(h), t0)
		case 5:
			what = "restore or rescope"
			u := RuleUpdate{Status: ptr(engine.StatusActiveEligible)}
			if rng.IntN(2) == 0 {
				u = RuleUpdate{Scope: &scopes[rng.IntN(len(scopes))]}
			}
			_, err = h.UpdateRule(ctx, pick(h), u, t0)
		case 6:
			next++
			what = "rename"
			_, err = h.UpdateRule(ctx, pick(h), RuleUpdate{RenameTo: ptr(fmt.Sprintf("r.n%03d", next))}, t0)
		case 7:
			what = "merge"
			from, into := pick(h), pick(h)
			_, err = h.MergeRule(ctx, from, into, t0)
		case 8:
			what = "sync"
			var defs []engine.Definition
			for i := 0; i < rng.IntN(4); i++ {
				defs = append(defs, engine.Definition{Rule: engine.Rule{RuleID: fmt.Sprintf("reg.r%d", rng.IntN(5)), Category: "code_style",
					Severity: engine.SeverityStyle, Text: fmt.Sprintf("v%d", rng.IntN(2)), Scope: scopes[rng.IntN(len(scopes))]}})
			}
			_, err = h.SyncDefinitions(ctx, dedupe(defs), t0)
		}
		if code := engine.ErrorCode(err); code != "" && code != engine.EINVALID && code != engine.ENOTFOUND && code != engine.ECONFLICT {
			t.Fatalf("step %d %s: %v", step, what, err)
		}
		if err == nil {
			okOps[what]++
		}
		if step%3 != 0 {
			continue // let changes pile up between refreshes too
		}
		for _, v := range views {
			got, err := db.RulesForScope(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			want, err := db.ListRules(ctx, RuleFilter{Status: engine.StatusActiveEligible, Scope: &v})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("step %d (%s), scope %s: cached rules (-database +cache):\n%s", step, what, v, diff)
			}
		}
	}
}

func dedupe(defs []engine.Definition) []engine.Definition {
	seen := map[string]bool{}
	var out []engine.Definition
	for _, d := range defs {
		if !seen[d.Rule.RuleID] {
			seen[d.Rule.RuleID] = true
			out = append(out, d)
		}
	}
	return out
}

// TestRuleVersionStamps checks the triggers of 001_init.sql: every change to
// a rule, whether the statement stamps row_version itself (the store's) or not
// (a hand-written UPDATE, a cascade), moves the 'rules' counter and leaves the
// row stamped with it, so the cache sees it.
func TestRuleVersionStamps(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	stamp := func() (row, counter int64) {
		t.Helper()
		db.read.QueryRow("SELECT row_version FROM persona_rules WHERE rule_id = 'tool.x'").Scan(&row)
		db.read.QueryRow("SELECT value FROM store_counters WHERE name = 'rules'").Scan(&counter)
		return row, counter
	}
	if _, err := db.RulesForScope(ctx, engine.Scope{}); err != nil { // warm the cache
		t.Fatal(err)
	}
	r0, c0 := stamp()
	if r0 != c0 {
		t.Fatalf("after insert: row_version %d, counter %d", r0, c0)
	}
	MustRecord(t, db, engine.Correction{RuleID: "tool.x"}) // a stamping statement
	r1, c1 := stamp()
	if c1 != c0+1 || r1 != c1 {
		t.Errorf("after a correction: row_version %d, counter %d; want both %d", r1, c1, c0+1)
	}
	if _, err := db.write.Exec("UPDATE persona_rules SET rule_text = 'edited by hand' WHERE rule_id = 'tool.x'"); err != nil {
		t.Fatal(err)
	}
	r2, c2 := stamp()
	if c2 != c1+1 || r2 != c2 {
		t.Errorf("after a hand edit: row_version %d, counter %d; want both %d", r2, c2, c1+1)
	}
	rules, _ := db.RulesForScope(ctx, engine.Scope{})
	if len(rules) != 1 || rules[0].Text != "edited by hand" || rules[0].Alpha != 3 {
		t.Errorf("cache missed a change: %+v", rules)
	}
}
