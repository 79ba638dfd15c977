package memorytest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

// seedVaried stores rules of many scopes, severities, topics and evidence levels.
func seedVaried(t *testing.T, db *store.DB) {
	t.Helper()
	scopes := []engine.Scope{
		{}, {Environment: "work"}, {Environment: "work", Project: "api"}, {Project: "api", AgentFamily: "claude"},
		{Environment: "home"}, {ContextTags: []string{"cli"}}, {Environment: "work", ExcludeTags: []string{"cli"}},
		{Environment: "work", Project: "api", AgentFamily: "claude", ContextTags: []string{"cli", "php"}},
	}
	sevs := []engine.Severity{engine.SeverityMust, engine.SeverityShould, engine.SeverityStyle}
	cats := []string{"tool_preference", "security_policy", "code_style", "general"}
	for i := 0; i < 48; i++ {
		r := engine.NewRule(fmt.Sprintf("r.%02d", i), cats[i%len(cats)], sevs[i%3], fmt.Sprintf("Rule %d", i), scopes[i%len(scopes)], engine.DefaultConfig(), t0)
		if i%5 == 0 {
			r.Topic = fmt.Sprintf("topic-%d", i%3)
		}
		if _, err := storetest.CreateRule(db, r); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < i%14; k++ {
			p := engine.Reinforce
			if k%6 == 5 {
				p = engine.Counter
			}
			MustRecord(t, db, engine.Correction{RuleID: r.RuleID, Polarity: p, At: t0.Add(time.Duration(i*14+k) * time.Hour)})
		}
	}
	if _, err := memory.ArchiveRule(context.Background(), db, "r.13", t0); err != nil {
		t.Fatal(err)
	}
}

func testSnapshotMatchesEngine(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	seedVaried(t, db)
	all, err := db.ListRules(ctx, store.RuleFilter{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.DefaultConfig()
	for _, s := range []engine.Scope{
		{}, {Environment: "work"}, {Environment: "work", Project: "api"}, {Environment: "work", Project: "api", AgentFamily: "claude"},
		{Environment: "work", Project: "api", AgentFamily: "claude", ContextTags: []string{"cli", "php"}}, {Environment: "home", ContextTags: []string{"cli"}},
	} {
		for _, max := range []int{0, 3} {
			t.Run(fmt.Sprintf("%s/max%d", s, max), func(t *testing.T) {
				req := engine.SnapshotRequest{Scope: s, Now: t0.Add(60 * 24 * time.Hour), Max: max}
				got, err := memory.Snapshot(ctx, db, req)
				if err != nil {
					t.Fatal(err)
				}
				want := engine.BuildSnapshot(all, req, cfg)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("(-engine over all rules +store):\n%s", diff)
				}
				if len(got.Rules) == 0 && s.Environment == "work" {
					t.Error("empty snapshot: the fixture should activate some rules")
				}
				rules, err := scopeRules(ctx, db, s)
				if err != nil {
					t.Fatal(err)
				}
				var wantRules []engine.Rule
				for _, r := range all {
					if r.Status == engine.StatusActiveEligible && r.Scope.Matches(s) {
						wantRules = append(wantRules, r)
					}
				}
				if diff := cmp.Diff(wantRules, rules); diff != "" {
					t.Errorf("cached rules (-want +got):\n%s", diff)
				}
			})
		}
	}
	_, err = memory.Snapshot(ctx, db, engine.SnapshotRequest{Scope: engine.Scope{Project: "A B"}})
	storetest.WantCode(t, err, engine.EINVALID)
	_, err = memory.Snapshot(ctx, db, engine.SnapshotRequest{Max: -1})
	storetest.WantCode(t, err, engine.EINVALID)
}

// TestSnapshotCacheFollowsWrites: a cached snapshot sees every later write,
// including writes made through another handle on the same file.
func testSnapshotCacheFollowsWrites(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	other := storetest.Reopen(t, db) // another process, as far as the cache knows
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{Environment: "work"})
	req := engine.SnapshotRequest{Scope: engine.Scope{Environment: "work"}, Now: t0}
	ids := func() []string {
		s, err := memory.Snapshot(ctx, db, req)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, r := range s.Rules {
			out = append(out, r.RuleID)
		}
		return out
	}
	if got := ids(); len(got) != 0 {
		t.Fatalf("inactive rule in snapshot: %v", got)
	}
	for i := 0; i < 6; i++ { // tool_preference: n_min 3, c_min 0.6; (2+6)/(7+6) = 0.615
		MustRecord(t, other, engine.Correction{RuleID: "tool.x"})
	}
	if got := ids(); !cmp.Equal(got, []string{"tool.x"}) {
		t.Errorf("after 6 reinforcements elsewhere: %v", got)
	}
	if _, err := memory.SetConfig(ctx, other, t0, "category.tool_preference.c_min", "0.65"); err != nil {
		t.Fatal(err)
	}
	if got := ids(); len(got) != 0 {
		t.Errorf("after raising c_min elsewhere: %v", got)
	}
}

// TestRulesCacheStaysConsistent runs random writes of every kind, through two
// handles on one file, and checks after each that the cached rules of several
// scopes equal what the database says.
func testRulesCacheStaysConsistent(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	other := storetest.Reopen(t, db)
	scopes := []engine.Scope{{}, {Environment: "work"}, {Environment: "work", Project: "api"}, {Project: "api", AgentFamily: "claude"}}
	views := []engine.Scope{{}, {Environment: "work"}, {Environment: "work", Project: "api", AgentFamily: "claude"}, {Environment: "home", Project: "api"}}
	rng := rand.New(rand.NewPCG(7, 11))
	next := 0
	okOps := map[string]int{}
	defer func() { t.Logf("successful writes: %v", okOps) }()
	ids := func(h *store.DB) []string {
		rs, err := h.ListRules(ctx, store.RuleFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, r.RuleID)
		}
		return out
	}
	pick := func(h *store.DB) string {
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
			_, err = storetest.CreateRule(h, r)
		case 2, 3:
			what = "record"
			_, _, err = Record(ctx, h, engine.Correction{RuleID: pick(h), Polarity: engine.Reinforce, UserText: "x", At: t0.Add(time.Duration(step) * time.Minute)})
		case 4:
			what = "archive"
			_, err = memory.ArchiveRule(ctx, h, pick(h), t0)
		case 5:
			what = "restore or rescope"
			u := memory.RuleUpdate{Status: ptr(engine.StatusActiveEligible)}
			if rng.IntN(2) == 0 {
				u = memory.RuleUpdate{Scope: &scopes[rng.IntN(len(scopes))]}
			}
			_, err = memory.UpdateRule(ctx, h, pick(h), u, t0)
		case 6:
			next++
			what = "rename"
			_, err = memory.UpdateRule(ctx, h, pick(h), memory.RuleUpdate{RenameTo: ptr(fmt.Sprintf("r.n%03d", next))}, t0)
		case 7:
			what = "merge"
			from, into := pick(h), pick(h)
			_, err = memory.MergeRule(ctx, h, from, into, t0)
		case 8:
			what = "sync"
			var defs []engine.Definition
			for i := 0; i < rng.IntN(4); i++ {
				defs = append(defs, engine.Definition{Rule: engine.Rule{RuleID: fmt.Sprintf("reg.r%d", rng.IntN(5)), Category: "code_style",
					Severity: engine.SeverityStyle, Text: fmt.Sprintf("v%d", rng.IntN(2)), Scope: scopes[rng.IntN(len(scopes))]}})
			}
			_, err = memory.ApplyRegistry(ctx, h, memory.RegistrySync{Definitions: dedupe(defs), At: t0})
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
			got, err := scopeRules(ctx, db, v)
			if err != nil {
				t.Fatal(err)
			}
			want, err := db.ListRules(ctx, store.RuleFilter{Status: engine.StatusActiveEligible, Scope: &v})
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

// scopeRules returns the store's cached active-eligible rules that apply
// in scope s (engine.Scope.Matches), ordered by rule id.
func scopeRules(ctx context.Context, db *store.DB, s engine.Scope) ([]engine.Rule, error) {
	rules, _, err := db.ScopeRules(ctx, s)
	out := []engine.Rule{}
	for _, r := range rules {
		if r.Scope.Matches(s) {
			out = append(out, r)
		}
	}
	return out, err
}
