package store

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/migrations"
)

// TestMigrateContraryKeepsTexts applies the migrations up to 003, stores a
// rule with two texts and a vector the way 003's schema holds them, then
// applies the rest: the texts and the vector survive, the embeddings counter
// still moves on writes, a 'contrary' text is accepted, and deleting a text
// still deletes its vector.
func TestMigrateContraryKeepsTexts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	w, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	upTo := func(v string) fs.FS {
		sub := fstest.MapFS{}
		names, _ := fs.Glob(migrations.FS, "*.sql")
		for _, n := range names {
			if n[:3] <= v {
				data, _ := fs.ReadFile(migrations.FS, n)
				sub[n] = &fstest.MapFile{Data: data}
			}
		}
		return sub
	}
	if err := migrate(ctx, w, upTo("003")); err != nil {
		t.Fatal(err)
	}
	now := fmtTime(t0)
	for _, q := range []string{
		`INSERT INTO persona_rules (rule_id, category, rule_text, first_seen, last_correction, created_at, updated_at)
		 VALUES ('tool.a', 'tool_preference', 'Use pnpm', '` + now + `', '` + now + `', '` + now + `', '` + now + `')`,
		`INSERT INTO rule_texts VALUES ('tool.a', 'template', 'Use pnpm', '` + textSHA256("Use pnpm") + `', '` + now + `')`,
		`INSERT INTO rule_texts VALUES ('tool.a', 'example', 'pnpm please', '` + textSHA256("pnpm please") + `', '` + now + `')`,
		`INSERT INTO persona_embeddings VALUES ('tool.a', 'm', '` + textSHA256("pnpm please") + `', 2, X'0000803F00000000', '` + now + `')`,
	} {
		if _, err := w.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := w.ExecContext(ctx, `INSERT INTO rule_texts VALUES ('tool.a', 'contrary', 'npm is fine', '`+textSHA256("npm is fine")+`', '`+now+`')`); err == nil {
		t.Fatal("schema 003 accepted a contrary text")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := Open(ctx, path) // applies 004 and later
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	texts, err := db.RuleTexts(ctx, "tool.a")
	if err != nil || len(texts) != 2 {
		t.Fatalf("texts after migrating: %+v, %v: want the template and the example", texts, err)
	}
	vecs, err := db.LoadEmbeddings(ctx, "m")
	if err != nil || len(vecs) != 1 || vecs[0].Kind != KindExample || !cmp.Equal(vecs[0].Vector, []float32{1, 0}) {
		t.Fatalf("embeddings after migrating: %+v, %v: want the example's [1 0]", vecs, err)
	}
	v0, _ := db.EmbeddingsVersion(ctx)
	if err := db.ReplaceRuleTexts(ctx, KindContrary, map[string][]string{"tool.a": {"npm is fine"}}); err != nil {
		t.Fatal(err)
	}
	if v1, _ := db.EmbeddingsVersion(ctx); v1 == v0 {
		t.Errorf("adding a contrary text left the embeddings version at %d", v0)
	}
	if err := db.ReplaceRuleTexts(ctx, KindExample, map[string][]string{"tool.a": nil}); err != nil {
		t.Fatal(err)
	}
	if vecs, _ := db.LoadEmbeddings(ctx, "m"); len(vecs) != 0 {
		t.Errorf("the example's vector outlived its text: %+v", vecs)
	}
}

// TestReplaceRuleTexts replaces one kind of texts and leaves the others.
func TestReplaceRuleTexts(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreate(t, db, "tool.a", "tool_preference", engine.Scope{})
	MustCreate(t, db, "tool.b", "tool_preference", engine.Scope{})
	kinds := func(id string) map[string]string {
		t.Helper()
		texts, err := db.RuleTexts(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, x := range texts {
			out[x.Text] = x.Kind
		}
		return out
	}
	if err := db.Write(ctx, func(tx *Tx) error { return tx.AddRuleText("tool.a", KindExample, "ex") }); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		texts map[string][]string
		a, b  map[string]string
	}{
		{map[string][]string{"tool.a": {"no", "nah"}, "tool.b": {"fine"}},
			map[string]string{"Text of tool.a": KindTemplate, "ex": KindExample, "no": KindContrary, "nah": KindContrary},
			map[string]string{"Text of tool.b": KindTemplate, "fine": KindContrary}},
		// An example keeps its kind; a listed rule loses what it no longer lists; tool.b is not listed.
		{map[string][]string{"tool.a": {"nah", "ex"}},
			map[string]string{"Text of tool.a": KindTemplate, "ex": KindExample, "nah": KindContrary},
			map[string]string{"Text of tool.b": KindTemplate, "fine": KindContrary}},
		{map[string][]string{"tool.a": nil, "tool.b": {}},
			map[string]string{"Text of tool.a": KindTemplate, "ex": KindExample},
			map[string]string{"Text of tool.b": KindTemplate}},
	}
	for i, s := range steps {
		if err := db.ReplaceRuleTexts(ctx, KindContrary, s.texts); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if diff := cmp.Diff(s.a, kinds("tool.a")); diff != "" {
			t.Errorf("step %d tool.a (-want +got):\n%s", i, diff)
		}
		if diff := cmp.Diff(s.b, kinds("tool.b")); diff != "" {
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
		{KindContrary, map[string][]string{"tool.a": {"ok", "  "}}, engine.EINVALID, "rule tool.a"},
		{KindContrary, map[string][]string{"tool.a": {"ok"}, "tool.zzz": {"x"}}, engine.ENOTFOUND, "tool.zzz"},
	} {
		err := db.ReplaceRuleTexts(ctx, tc.kind, tc.texts)
		if engine.ErrorCode(err) != tc.code || !strings.Contains(engine.ErrorMessage(err), tc.msg) {
			t.Errorf("ReplaceRuleTexts(%s, %v) = %v: want %s naming %q", tc.kind, tc.texts, err, tc.code, tc.msg)
		}
	}
	if diff := cmp.Diff(map[string]string{"Text of tool.a": KindTemplate, "ex": KindExample}, kinds("tool.a")); diff != "" {
		t.Errorf("a failed call wrote (-want +got):\n%s", diff)
	}
	if Affirms(KindContrary) || !Affirms(KindTemplate) || !Affirms(KindExample) || !Affirms(KindCorrection) {
		t.Error("Affirms: want false for contrary only")
	}
}
