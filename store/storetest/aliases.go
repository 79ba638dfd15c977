package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// testRuleAliases: a rename leaves the old id as an alias of the rule, a
// second rename carries the aliases along, a merge of a candidate gives
// them (and the merged id) to the rule merged into, and a rule created
// under an old id takes the id back.
func testRuleAliases(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	MustCreate(t, db, "tool.a", "tool_preference", engine.Scope{})
	MustCreate(t, db, "tool.b", "tool_preference", engine.Scope{})
	write := func(what string, fn func(*store.Tx) error) {
		t.Helper()
		if err := db.Write(ctx, T0, fn); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	want := func(step string, aliases map[string]string) {
		t.Helper()
		for old, to := range aliases {
			if got, err := db.RuleAlias(ctx, old); err != nil || got != to {
				t.Errorf("%s: RuleAlias(%s) = %q, %v; want %q", step, old, got, err, to)
			}
		}
	}
	want("new rules", map[string]string{"tool.a": "", "tool.b": "", "tool.nope": ""})

	write("rename a", func(tx *store.Tx) error { return tx.RenameRule("tool.a", "tool.a2") })
	want("renamed once", map[string]string{"tool.a": "tool.a2", "tool.a2": ""})

	write("rename a2", func(tx *store.Tx) error { return tx.RenameRule("tool.a2", "tool.a3") })
	want("renamed twice", map[string]string{"tool.a": "tool.a3", "tool.a2": "tool.a3", "tool.a3": ""})

	write("rename back", func(tx *store.Tx) error { return tx.RenameRule("tool.a3", "tool.a") })
	want("renamed back", map[string]string{"tool.a": "", "tool.a2": "tool.a", "tool.a3": "tool.a"})

	c := engine.NewRule("tool.c", "tool_preference", engine.SeverityShould, "Text of tool.c", engine.Scope{}, engine.DefaultConfig(), T0)
	c.Status = engine.StatusCandidate
	if _, err := CreateRule(db, c); err != nil {
		t.Fatal(err)
	}
	write("rename c", func(tx *store.Tx) error { return tx.RenameRule("tool.c", "tool.c2") })
	write("merge c2 into a", func(tx *store.Tx) error {
		if err := tx.MoveRuleRows("tool.c2", "tool.a"); err != nil {
			return err
		}
		return tx.DeleteRule("tool.c2")
	})
	want("merged", map[string]string{"tool.c": "tool.a", "tool.c2": "tool.a", "tool.a2": "tool.a"})

	MustCreate(t, db, "tool.a2", "tool_preference", engine.Scope{})
	want("a2 created again", map[string]string{"tool.a": "", "tool.a2": "", "tool.a3": "tool.a", "tool.c": "tool.a"})
	if r, err := db.GetRule(ctx, "tool.a2"); err != nil || r.Text != "Text of tool.a2" {
		t.Errorf("GetRule(tool.a2) = %+v, %v; want the new rule", r, err)
	}

	// As an import restores them: an id that is a rule's, or an alias
	// already, stays as the store has it.
	for _, tc := range []struct {
		a      store.RuleAlias
		kept   bool
		code   string
		reason string
	}{
		{store.RuleAlias{OldID: "tool.z", RuleID: "tool.a"}, true, "", "a free id"},
		{store.RuleAlias{OldID: "tool.c", RuleID: "tool.b"}, false, "", "an alias already"},
		{store.RuleAlias{OldID: "tool.b", RuleID: "tool.a"}, false, "", "a rule's id"},
		{store.RuleAlias{OldID: "tool.y", RuleID: "tool.nope"}, false, engine.ENOTFOUND, "an unknown rule"},
		{store.RuleAlias{OldID: "tool.a", RuleID: "tool.a"}, false, engine.EINVALID, "itself"},
		{store.RuleAlias{OldID: "Tool Y", RuleID: "tool.a"}, false, engine.EINVALID, "a malformed id"},
	} {
		var kept bool
		err := db.Write(ctx, T0, func(tx *store.Tx) (err error) {
			kept, err = tx.PutRuleAlias(tc.a)
			return err
		})
		if kept != tc.kept || engine.ErrorCode(err) != tc.code {
			t.Errorf("PutRuleAlias(%+v), %s: %v, %v; want %v, code %q", tc.a, tc.reason, kept, err, tc.kept, tc.code)
		}
	}
	var all []store.RuleAlias
	if err := db.Export(ctx, store.ExportVisitor{Alias: func(a store.RuleAlias) error { all = append(all, a); return nil }}); err != nil {
		t.Fatal(err)
	}
	wantAll := []store.RuleAlias{{OldID: "tool.a3", RuleID: "tool.a"}, {OldID: "tool.c", RuleID: "tool.a"},
		{OldID: "tool.c2", RuleID: "tool.a"}, {OldID: "tool.z", RuleID: "tool.a"}}
	if !slices.Equal(all, wantAll) {
		t.Errorf("exported aliases %+v, want %+v", all, wantAll)
	}
}
