package memorytest

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

// replaceTextsOf checks texts (memory.CheckTextsOf) and replaces them in
// one transaction at t0, as a registry sync does.
func replaceTextsOf(ctx context.Context, db *store.DB, kind string, texts map[string][]string) error {
	if err := memory.CheckTextsOf(kind, texts); err != nil {
		return err
	}
	return db.Write(ctx, t0, func(tx *store.Tx) error { return memory.ReplaceTextsOf(tx, kind, texts) })
}

// testReplaceTextsOf replaces one kind of texts and leaves the others;
// a bad call writes nothing.
func testReplaceTextsOf(t *testing.T, open storetest.Opener) {
	ctx := context.Background()
	db := open(t)
	storetest.MustCreate(t, db, "tool.a", "tool_preference", engine.Scope{})
	storetest.MustCreate(t, db, "tool.b", "tool_preference", engine.Scope{})
	err := db.Write(ctx, t0, func(tx *store.Tx) error {
		_, err := tx.InsertRuleText(store.RuleText{RuleID: "tool.a", Kind: store.KindExample, Text: "ex", SHA256: store.TextSHA256("ex")})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		texts map[string][]string
		a, b  map[string]string
	}{
		{map[string][]string{"tool.a": {"no", "nah"}, "tool.b": {"fine"}},
			map[string]string{"Text of tool.a": store.KindTemplate, "ex": store.KindExample, "no": store.KindContrary, "nah": store.KindContrary},
			map[string]string{"Text of tool.b": store.KindTemplate, "fine": store.KindContrary}},
		// An example keeps its kind; a listed rule loses what it no longer lists; tool.b is not listed.
		{map[string][]string{"tool.a": {"nah", "ex"}},
			map[string]string{"Text of tool.a": store.KindTemplate, "ex": store.KindExample, "nah": store.KindContrary},
			map[string]string{"Text of tool.b": store.KindTemplate, "fine": store.KindContrary}},
		{map[string][]string{"tool.a": nil, "tool.b": {}},
			map[string]string{"Text of tool.a": store.KindTemplate, "ex": store.KindExample},
			map[string]string{"Text of tool.b": store.KindTemplate}},
	}
	for i, s := range steps {
		if err := replaceTextsOf(ctx, db, store.KindContrary, s.texts); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if diff := cmp.Diff(s.a, storetest.MustTextKinds(t, db, "tool.a")); diff != "" {
			t.Errorf("step %d tool.a (-want +got):\n%s", i, diff)
		}
		if diff := cmp.Diff(s.b, storetest.MustTextKinds(t, db, "tool.b")); diff != "" {
			t.Errorf("step %d tool.b (-want +got):\n%s", i, diff)
		}
	}
	for _, tc := range []struct {
		kind  string
		texts map[string][]string
		code  string
		msg   string
	}{
		{"opposite", map[string][]string{"tool.a": {"x"}}, engine.EINVALID, "unknown rule text kind"},
		{store.KindContrary, map[string][]string{"tool.a": {"ok", "  "}}, engine.EINVALID, "rule tool.a"},
		{store.KindContrary, map[string][]string{"tool.a": {"ok"}, "tool.zzz": {"x"}}, engine.ENOTFOUND, "tool.zzz"},
	} {
		err := replaceTextsOf(ctx, db, tc.kind, tc.texts)
		if engine.ErrorCode(err) != tc.code || !strings.Contains(engine.ErrorMessage(err), tc.msg) {
			t.Errorf("ReplaceTextsOf(%s, %v) = %v: want %s naming %q", tc.kind, tc.texts, err, tc.code, tc.msg)
		}
	}
	if diff := cmp.Diff(map[string]string{"Text of tool.a": store.KindTemplate, "ex": store.KindExample}, storetest.MustTextKinds(t, db, "tool.a")); diff != "" {
		t.Errorf("a failed call wrote (-want +got):\n%s", diff)
	}
}
