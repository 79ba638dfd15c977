package memorytest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

func testListRules(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	storetest.MustCreate(t, db, "a.global", "code_style", engine.Scope{})
	storetest.MustCreate(t, db, "b.work", "tool_preference", engine.Scope{Environment: "work"})
	storetest.MustCreate(t, db, "c.work-api-cli", "tool_preference", engine.Scope{Environment: "work", Project: "api", ContextTags: []string{"cli"}})
	storetest.MustCreate(t, db, "d.home", "tool_preference", engine.Scope{Environment: "home"})
	storetest.MustCreate(t, db, "e.work-no-cli", "code_style", engine.Scope{Environment: "work", ExcludeTags: []string{"cli"}})
	if _, err := memory.ArchiveRule(ctx, db, "d.home", t0); err != nil {
		t.Fatal(err)
	}
	ids := func(rs []engine.Rule) []string {
		out := []string{}
		for _, r := range rs {
			out = append(out, r.RuleID)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		f    store.RuleFilter
		want []string
	}{
		{"all", store.RuleFilter{}, []string{"a.global", "b.work", "c.work-api-cli", "d.home", "e.work-no-cli"}},
		{"category", store.RuleFilter{Category: "code_style"}, []string{"a.global", "e.work-no-cli"}},
		{"archived", store.RuleFilter{Status: engine.StatusArchived}, []string{"d.home"}},
		{"scope work/api[cli]", store.RuleFilter{Scope: &engine.Scope{Environment: "work", Project: "api", ContextTags: []string{"cli"}}},
			[]string{"a.global", "b.work", "c.work-api-cli"}},
		{"scope work", store.RuleFilter{Scope: &engine.Scope{Environment: "work"}}, []string{"a.global", "b.work", "e.work-no-cli"}},
		{"page 1", store.RuleFilter{Limit: 2}, []string{"a.global", "b.work"}},
		{"page 2", store.RuleFilter{Limit: 2, After: "b.work"}, []string{"c.work-api-cli", "d.home"}},
		{"scope page", store.RuleFilter{Limit: 1, After: "a.global", Scope: &engine.Scope{Environment: "work"}}, []string{"b.work"}},
		{"source", store.RuleFilter{Source: "registry"}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.ListRules(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, ids(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, f := range []store.RuleFilter{{Category: "Bad Cat"}, {Status: "zombie"}, {Limit: -1}, {Scope: &engine.Scope{Project: "no way"}}, {Source: "bogus"}} {
		_, err := db.ListRules(ctx, f)
		storetest.WantCode(t, err, engine.EINVALID)
	}
}
