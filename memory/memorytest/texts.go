package memorytest

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

func testEmbeddingsRoundTrip(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	MustSync(t, db, storetest.Def("reg.a", "Rule A", "say a"), storetest.Def("reg.b", "Rule B"))
	if n, err := db.CountTexts(ctx); err != nil || n != 3 {
		t.Fatalf("CountTexts = %d, %v; want 3", n, err)
	}
	miss, err := db.MissingEmbeddings(ctx, "mini@abc")
	if err != nil {
		t.Fatal(err)
	}
	if len(miss) != 3 || miss[0].RuleID != "reg.a" || miss[2].RuleID != "reg.b" {
		t.Fatalf("missing %+v", miss)
	}
	v0 := storetest.MustVersion(t, db)
	vecs := [][]float32{{0.5, -1.25, float32(math.Pi)}, {1, 0, 0}, {0, 1e-30, -0}}
	// Interrupted after the first batch: the rest is still missing.
	if err := db.PutEmbeddings(ctx, t0, "mini@abc", miss[:1], vecs[:1]); err != nil {
		t.Fatal(err)
	}
	if rest, _ := db.MissingEmbeddings(ctx, "mini@abc"); !cmp.Equal(rest, miss[1:]) {
		t.Errorf("after one batch, missing %+v", rest)
	}
	if err := db.PutEmbeddings(ctx, t0, "mini@abc", miss[1:], vecs[1:]); err != nil {
		t.Fatal(err)
	}
	if v := storetest.MustVersion(t, db); v <= v0 {
		t.Errorf("EmbeddingsVersion %d did not move from %d", v, v0)
	}
	if rest, _ := db.MissingEmbeddings(ctx, "mini@abc"); len(rest) != 0 {
		t.Errorf("still missing %+v", rest)
	}
	if other, _ := db.MissingEmbeddings(ctx, "other@1"); len(other) != 3 {
		t.Errorf("another model misses %d texts, want 3", len(other))
	}
	got, err := db.LoadEmbeddings(ctx, "mini@abc")
	if err != nil {
		t.Fatal(err)
	}
	var want []store.StoredEmbedding
	for i, m := range miss {
		want = append(want, store.StoredEmbedding{RuleID: m.RuleID, Kind: m.Kind, SHA256: m.SHA256, Vector: vecs[i]})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LoadEmbeddings (-want +got):\n%s", diff)
	}

	// Archived rules' vectors are not loaded; the version moves.
	v1 := storetest.MustVersion(t, db)
	if _, err := memory.ArchiveRule(ctx, db, "reg.b", t0); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.LoadEmbeddings(ctx, "mini@abc"); len(got) != 2 {
		t.Errorf("loaded %d vectors after archiving reg.b, want 2", len(got))
	}
	if storetest.MustVersion(t, db) == v1 {
		t.Error("archiving did not move EmbeddingsVersion")
	}
	// Recording evidence does not.
	v2 := storetest.MustVersion(t, db)
	MustRecord(t, db, engine.Correction{RuleID: "reg.a"})
	if storetest.MustVersion(t, db) != v2 {
		t.Error("a correction moved EmbeddingsVersion")
	}
}

func testPutEmbeddingsBadInput(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	MustSync(t, db, storetest.Def("reg.a", "Rule A", "say a"))
	miss, _ := db.MissingEmbeddings(ctx, "m@1")
	if err := db.PutEmbeddings(ctx, t0, "m@1", miss[:1], [][]float32{{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	n := storetest.MustCount(t, db)
	for _, tc := range []struct {
		name  string
		model string
		items []store.RuleText
		vecs  [][]float32
	}{
		{"length mismatch", "m@1", miss, [][]float32{{1, 2, 3}}},
		{"dims differ from stored", "m@1", miss[1:], [][]float32{{1, 2}}},
		{"dims differ in batch", "m@2", miss, [][]float32{{1, 2}, {1, 2, 3}}},
		{"empty vector", "m@2", miss[:1], [][]float32{{}}},
		{"NaN", "m@2", miss[:1], [][]float32{{float32(math.NaN())}}},
		{"no model", "", miss[:1], [][]float32{{1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			storetest.WantCode(t, db.PutEmbeddings(ctx, t0, tc.model, tc.items, tc.vecs), engine.EINVALID)
			if storetest.MustCount(t, db) != n {
				t.Error("wrote")
			}
		})
	}
	// A text removed since it was listed is skipped, not an error.
	gone := store.RuleText{RuleID: "reg.a", Kind: store.KindExample, Text: "old", SHA256: store.TextSHA256("old")}
	if err := db.PutEmbeddings(ctx, t0, "m@1", []store.RuleText{gone}, [][]float32{{1, 2, 3}}); err != nil || storetest.MustCount(t, db) != n {
		t.Errorf("vanished text: %v", err)
	}
}

// A scope edit changes which rules a classifier may offer, so it must bump
// the embeddings version its index is cached under.
func testScopeEditBumpsEmbeddingsVersion(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	before, err := db.EmbeddingsVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := engine.Scope{Project: "api"}
	if _, err := memory.UpdateRule(ctx, db, "tool.x", memory.RuleUpdate{Scope: &s}, t0); err != nil {
		t.Fatal(err)
	}
	after, _ := db.EmbeddingsVersion(ctx)
	if after <= before {
		t.Errorf("embeddings version %d → %d after a scope edit", before, after)
	}
	text := "new text"
	memory.UpdateRule(ctx, db, "tool.x", memory.RuleUpdate{Text: &text}, t0)
	MustRecord(t, db, engine.Correction{RuleID: "tool.x"})
	if v, _ := db.EmbeddingsVersion(ctx); v <= after {
		t.Errorf("embeddings version %d → %d after a text edit", after, v)
	}
}

// testPruneEmbeddings: PruneEmbeddings deletes the vectors of the embedder's
// other fingerprints and nothing else — not another embedder's, not a
// variant's whose name only starts the same.
func testPruneEmbeddings(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	MustSync(t, db, storetest.Def("reg.a", "Rule A"), storetest.Def("reg.b", "Rule B"))
	miss, err := db.MissingEmbeddings(ctx, "lex@old")
	if err != nil {
		t.Fatal(err)
	}
	vecs := [][]float32{{1, 0}, {0, 1}}
	for _, id := range []string{"lex@old", "lex@older", "lex@new", "lex-int8@old", "mini@old"} {
		if err := db.PutEmbeddings(ctx, t0, id, miss, vecs); err != nil {
			t.Fatal(err)
		}
	}
	n, err := db.PruneEmbeddings(ctx, t0, "lex@new")
	if err != nil || n != 4 {
		t.Fatalf("PruneEmbeddings(lex@new) = %d, %v; want 4 deleted", n, err)
	}
	for id, want := range map[string]int{"lex@old": 0, "lex@older": 0, "lex@new": 2, "lex-int8@old": 2, "mini@old": 2} {
		if got, err := db.LoadEmbeddings(ctx, id); err != nil || len(got) != want {
			t.Errorf("%s: %d vectors (%v), want %d", id, len(got), err, want)
		}
	}
	if n, err := db.PruneEmbeddings(ctx, t0, "lex@new"); err != nil || n != 0 {
		t.Errorf("second prune = %d, %v; want 0", n, err)
	}
	for _, bad := range []string{"", "lex", "lex@", "@abc"} {
		if _, err := db.PruneEmbeddings(ctx, t0, bad); engine.ErrorCode(err) != engine.EINVALID {
			t.Errorf("PruneEmbeddings(%q) = %v, want EINVALID", bad, err)
		}
	}
}
