package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// TestMigrateContraryKeepsTexts applies the migrations up to 003, stores a
// rule with two texts and a vector the way 003's schema holds them, then
// applies the rest: the texts and the vector survive, the embeddings counter
// still moves on writes, a 'contrary' text is accepted, and deleting a text
// still deletes its vector.
// TestReplaceRuleTexts replaces one kind of texts and leaves the others.
func testReplaceRuleTexts(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t)
	MustCreate(t, db, "tool.a", "tool_preference", engine.Scope{})
	MustCreate(t, db, "tool.b", "tool_preference", engine.Scope{})
	if err := db.Write(ctx, func(tx *store.Tx) error { return tx.AddRuleText("tool.a", store.KindExample, "ex") }); err != nil {
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
		if err := db.ReplaceRuleTexts(ctx, store.KindContrary, s.texts); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if diff := cmp.Diff(s.a, MustTextKinds(t, db, "tool.a")); diff != "" {
			t.Errorf("step %d tool.a (-want +got):\n%s", i, diff)
		}
		if diff := cmp.Diff(s.b, MustTextKinds(t, db, "tool.b")); diff != "" {
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
		err := db.ReplaceRuleTexts(ctx, tc.kind, tc.texts)
		if engine.ErrorCode(err) != tc.code || !strings.Contains(engine.ErrorMessage(err), tc.msg) {
			t.Errorf("ReplaceRuleTexts(%s, %v) = %v: want %s naming %q", tc.kind, tc.texts, err, tc.code, tc.msg)
		}
	}
	if diff := cmp.Diff(map[string]string{"Text of tool.a": store.KindTemplate, "ex": store.KindExample}, MustTextKinds(t, db, "tool.a")); diff != "" {
		t.Errorf("a failed call wrote (-want +got):\n%s", diff)
	}
	if store.Affirms(store.KindContrary) || !store.Affirms(store.KindTemplate) || !store.Affirms(store.KindExample) || !store.Affirms(store.KindCorrection) {
		t.Error("store.Affirms: want false for contrary only")
	}
}

// EmbeddingsVersionWithin sees this process's writes at once, and another
// handle's (another process's) once its cached read is older than maxAge.
func testEmbeddingsVersionWithin(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	v0, err := db.EmbeddingsVersionWithin(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	MustCreate(t, db, "tool.y", "tool_preference", engine.Scope{})
	if v1, _ := db.EmbeddingsVersionWithin(ctx, time.Hour); v1 <= v0 {
		t.Fatalf("own write not seen: %d → %d", v0, v1)
	}
	v1, _ := db.EmbeddingsVersionWithin(ctx, time.Hour)
	other := Reopen(t, db)
	MustCreate(t, other, "tool.z", "tool_preference", engine.Scope{})
	if v, _ := db.EmbeddingsVersionWithin(ctx, time.Hour); v != v1 {
		t.Errorf("another handle's write seen before maxAge: %d → %d", v1, v)
	}
	if v, _ := db.EmbeddingsVersionWithin(ctx, 0); v <= v1 {
		t.Errorf("another handle's write not seen after maxAge: %d → %d", v1, v)
	}
}
