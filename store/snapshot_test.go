package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
)

// seedVaried stores rules of many scopes, severities, topics and evidence levels.
func seedVaried(t *testing.T, db *DB) {
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
		if _, err := db.CreateRule(context.Background(), r); err != nil {
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
	if _, err := db.ArchiveRule(context.Background(), "r.13", t0); err != nil {
		t.Fatal(err)
	}
}

func TestSnapshotMatchesEngine(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	seedVaried(t, db)
	all, err := db.ListRules(ctx, RuleFilter{})
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
				got, err := db.Snapshot(ctx, req)
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
				rules, err := db.RulesForScope(ctx, s)
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
					t.Errorf("RulesForScope (-want +got):\n%s", diff)
				}
			})
		}
	}
	_, err = db.Snapshot(ctx, engine.SnapshotRequest{Scope: engine.Scope{Project: "A B"}})
	wantCode(t, err, engine.EINVALID)
	_, err = db.Snapshot(ctx, engine.SnapshotRequest{Max: -1})
	wantCode(t, err, engine.EINVALID)
}

// TestSnapshotCacheFollowsWrites: a cached snapshot sees every later write,
// including writes made through another handle on the same file.
func TestSnapshotCacheFollowsWrites(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	other, err := Open(ctx, db.Path()) // another process, as far as the cache knows
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{Environment: "work"})
	req := engine.SnapshotRequest{Scope: engine.Scope{Environment: "work"}, Now: t0}
	ids := func() []string {
		s, err := db.Snapshot(ctx, req)
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
	if _, err := other.SetConfig(ctx, "category.tool_preference.c_min", "0.65"); err != nil {
		t.Fatal(err)
	}
	if got := ids(); len(got) != 0 {
		t.Errorf("after raising c_min elsewhere: %v", got)
	}
}
