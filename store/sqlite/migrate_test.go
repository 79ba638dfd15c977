package sqlite

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
	"github.com/lexsona/lexsona/store/storetest"
)

func TestOpenTwiceIsNoop(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a", "b", "lexsona.db") // Open creates the directories
	db, _, err := openPath(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	first, err := db.Migrations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != LatestSchemaVersion() || first[len(first)-1].Version != LatestSchemaVersion() {
		t.Fatalf("applied %+v, want versions 1..%d", first, LatestSchemaVersion())
	}
	storetest.MustCreate(t, db, "tool.a", "tool_preference", engine.Scope{})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, _, err = openPath(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	again, err := db.Migrations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("migrations changed on reopen (-first +again):\n%s", diff)
	}
	if v, err := db.SchemaVersion(ctx); err != nil || v != LatestSchemaVersion() {
		t.Errorf("SchemaVersion = %d, %v; want %d", v, err, LatestSchemaVersion())
	}
	if _, err := db.GetRule(ctx, "tool.a"); err != nil {
		t.Errorf("rule lost on reopen: %v", err)
	}
}

func TestMigrateAppliesEachOnceInOrder(t *testing.T) {
	ctx := context.Background()
	w, err := sql.Open("sqlite", dsn(filepath.Join(t.TempDir(), "m.db"), true, "FULL"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	fsys := fstest.MapFS{
		"001_first.sql":  {Data: []byte("CREATE TABLE log (n INTEGER);\nINSERT INTO log VALUES (1);")},
		"002_second.sql": {Data: []byte("INSERT INTO log SELECT max(n) + 1 FROM log;")},
	}
	for run := 0; run < 3; run++ {
		if err := migrate(ctx, w, fsys, t0); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
	}
	var got []int
	rows, err := w.Query("SELECT n FROM log ORDER BY n")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n int
		rows.Scan(&n)
		got = append(got, n)
	}
	rows.Close()
	if diff := cmp.Diff([]int{1, 2}, got); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}

	// A failing migration rolls back whole and is not recorded.
	fsys["003_broken.sql"] = &fstest.MapFile{Data: []byte("INSERT INTO log VALUES (3);\nINSERT INTO nowhere VALUES (1);")}
	if err := migrate(ctx, w, fsys, t0); err == nil || !strings.Contains(err.Error(), "003_broken") {
		t.Fatalf("broken migration: err = %v, want one naming 003_broken", err)
	}
	var n, v int
	w.QueryRow("SELECT count(*) FROM log").Scan(&n)
	w.QueryRow("SELECT max(version) FROM schema_migrations").Scan(&v)
	if n != 2 || v != 2 {
		t.Errorf("after a failed migration: %d log rows, version %d; want 2, 2", n, v)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lexsona.db")
	db, d, err := openPath(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.write.Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', '2030-01-01T00:00:00.000000000Z')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, _, err = openPath(ctx, path)
	storetest.WantCode(t, err, engine.EUNAVAILABLE)
	want := "database schema version 999 is newer than this lexsona build knows (" + strconv.Itoa(LatestSchemaVersion()) + "): upgrade lexsona"
	if engine.ErrorMessage(err) != want {
		t.Errorf("message %q, want %q", engine.ErrorMessage(err), want)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	_, _, err := openPath(ctx, " ")
	storetest.WantCode(t, err, engine.EINVALID)

	junk := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(junk, []byte(strings.Repeat("not a database ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = openPath(ctx, junk)
	storetest.WantCode(t, err, engine.EUNAVAILABLE)

	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	_, _, err = openPath(ctx, filepath.Join(file, "sub", "x.db")) // parent is a file
	storetest.WantCode(t, err, engine.EUNAVAILABLE)
}

func TestConnectionPragmas(t *testing.T) {
	db, d := mustOpen(t)
	for _, tc := range []struct {
		pool   *sql.DB
		pragma string
		want   string
	}{
		{d.write, "journal_mode", "wal"},
		{d.write, "foreign_keys", "1"},
		{d.write, "busy_timeout", "10000"},
		{d.write, "synchronous", "2"}, // FULL: a commit is on disk when it returns
		{d.read, "query_only", "1"},
		{d.read, "foreign_keys", "1"},
		{d.read, "busy_timeout", "10000"},
	} {
		var got string
		if err := tc.pool.QueryRow("PRAGMA " + tc.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("PRAGMA %s = %s, want %s", tc.pragma, got, tc.want)
		}
	}
	if _, err := d.read.Exec("INSERT INTO persona_config (key, value, updated_at) VALUES ('n_min', '3', 'x')"); err == nil {
		t.Error("the read pool accepted a write")
	}
	if err := db.Writable(context.Background()); err != nil {
		t.Errorf("Writable: %v", err)
	}
}

func TestDSNEscapesPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "with space?and#hash%")
	db, _, err := openPath(context.Background(), filepath.Join(dir, "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := os.Stat(filepath.Join(dir, "x.db")); err != nil {
		t.Errorf("database not at its path: %v", err)
	}
}

// TestMigrateContraryKeepsTexts applies the migrations up to 003, stores a
// rule with two texts and a vector the way 003's schema holds them, then
// applies the rest: the texts and the vector survive, the embeddings counter
// still moves on writes, a 'contrary' text is accepted, and deleting a text
// still deletes its vector.
func TestMigrateContraryKeepsTexts(t *testing.T) {
	ctx := context.Background()
	path, w := migratedTo(t, "003")
	now := sqldriver.FormatTime(t0)
	for _, q := range []string{
		`INSERT INTO persona_rules (rule_id, category, rule_text, first_seen, last_correction, created_at, updated_at)
		 VALUES ('tool.a', 'tool_preference', 'Use pnpm', '` + now + `', '` + now + `', '` + now + `', '` + now + `')`,
		`INSERT INTO rule_texts VALUES ('tool.a', 'template', 'Use pnpm', '` + store.TextSHA256("Use pnpm") + `', '` + now + `')`,
		`INSERT INTO rule_texts VALUES ('tool.a', 'example', 'pnpm please', '` + store.TextSHA256("pnpm please") + `', '` + now + `')`,
		`INSERT INTO persona_embeddings VALUES ('tool.a', 'm', '` + store.TextSHA256("pnpm please") + `', 2, X'0000803F00000000', '` + now + `')`,
	} {
		if _, err := w.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := w.ExecContext(ctx, `INSERT INTO rule_texts VALUES ('tool.a', 'contrary', 'npm is fine', '`+store.TextSHA256("npm is fine")+`', '`+now+`')`); err == nil {
		t.Fatal("schema 003 accepted a contrary text")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	db, _, err := openPath(ctx, path) // applies 004 and later
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	texts, err := db.RuleTexts(ctx, "tool.a")
	if err != nil || len(texts) != 2 {
		t.Fatalf("texts after migrating: %+v, %v: want the template and the example", texts, err)
	}
	vecs, err := db.LoadEmbeddings(ctx, "m")
	if err != nil || len(vecs) != 1 || vecs[0].Kind != store.KindExample || !cmp.Equal(vecs[0].Vector, []float32{1, 0}) {
		t.Fatalf("embeddings after migrating: %+v, %v: want the example's [1 0]", vecs, err)
	}
	v0, _ := db.EmbeddingsVersion(ctx)
	err = db.Write(ctx, t0, func(tx *store.Tx) error {
		_, err := tx.InsertRuleText(store.RuleText{RuleID: "tool.a", Kind: store.KindContrary, Text: "npm is fine", SHA256: store.TextSHA256("npm is fine")})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if v1, _ := db.EmbeddingsVersion(ctx); v1 == v0 {
		t.Errorf("adding a contrary text left the embeddings version at %d", v0)
	}
	example := texts[slices.IndexFunc(texts, func(x store.RuleText) bool { return x.Kind == store.KindExample })]
	if err := db.Write(ctx, t0, func(tx *store.Tx) error { return tx.DeleteRuleText("tool.a", example.SHA256) }); err != nil {
		t.Fatal(err)
	}
	if vecs, _ := db.LoadEmbeddings(ctx, "m"); len(vecs) != 0 {
		t.Errorf("the example's vector outlived its text: %+v", vecs)
	}
}

// migratedTo makes a SQLite file in a temporary folder with the embedded
// migrations up to version (migrationsUpTo) applied, and returns its path
// and the single write connection the migrations ran on.
func migratedTo(t *testing.T, version string) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.db")
	w, err := sql.Open("sqlite", dsn(path, true, "FULL"))
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	if err := migrate(context.Background(), w, migrationsUpTo(version), t0); err != nil {
		t.Fatal(err)
	}
	return path, w
}
