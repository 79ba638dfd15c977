package sqlite

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/memory/memorytest"
	"github.com/lexsona/lexsona/migrations"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
	"github.com/lexsona/lexsona/store/storetest"
)

// migrationsUpTo returns the embedded SQLite migrations numbered up to v.
func migrationsUpTo(v string) fs.FS {
	sub := fstest.MapFS{}
	names, _ := fs.Glob(migrations.SQLite, "*.sql")
	for _, n := range names {
		if n[:3] <= v {
			data, _ := fs.ReadFile(migrations.SQLite, n)
			sub[n] = &fstest.MapFile{Data: data}
		}
	}
	return sub
}

// TestMigrateNamedRegistries applies the migrations up to 004, stores two
// rules with events (counterexamples with a tag among them) and the registry
// in force the way 004's schema holds them, then applies 005: every event
// keeps its id and content, the events stay append-only, tags are still
// counted and ids continue; 'promotion' and 'violation' events are accepted;
// the registry rule names the registry that was in force, the user's rule
// none; the registry in force keeps its row, keyed by name.
func TestMigrateNamedRegistries(t *testing.T) {
	ctx := context.Background()
	path, w := migratedTo(t, "004")
	now := sqldriver.FormatTime(t0)
	for _, q := range []string{
		`INSERT INTO persona_rules (rule_id, category, rule_text, first_seen, last_correction, source, definition_sha256, created_at, updated_at)
		 VALUES ('reg.a', 'tool_preference', 'Use pnpm', '` + now + `', '` + now + `', 'registry', 'abc', '` + now + `', '` + now + `')`,
		`INSERT INTO persona_rules (rule_id, category, rule_text, first_seen, last_correction, created_at, updated_at)
		 VALUES ('user.b', 'tool_preference', 'No sed', '` + now + `', '` + now + `', '` + now + `', '` + now + `')`,
		`INSERT INTO persona_events (rule_id, event_type, scope, polarity, alpha, beta, at) VALUES ('reg.a', 'creation', '{}', 0, 2, 5, '` + now + `')`,
		`INSERT INTO persona_events (rule_id, event_type, user_text, frame_id, scope, polarity, alpha, beta, at)
		 VALUES ('user.b', 'counterexample', 'in ci it is fine', 'f1', '{"context_tags":["ci"]}', -1, 2, 6, '` + now + `')`,
		`INSERT INTO persona_events (rule_id, event_type, scope, polarity, alpha, beta, at) VALUES ('user.b', 'reinforcement', '{}', 1, 3, 6, '` + now + `')`,
		`INSERT INTO registry_source (id, name, yaml, sha256, synced_at) VALUES (1, 'team.yaml', X'76313A', 'sum', '` + now + `')`,
	} {
		if _, err := w.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := w.ExecContext(ctx, `INSERT INTO persona_events (rule_id, event_type, scope, polarity, alpha, beta, at)
		VALUES ('reg.a', 'promotion', '{}', 0, 2, 5, '`+now+`')`); err == nil {
		t.Fatal("schema 004 accepted a promotion event")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	db, d, err := openPath(ctx, path) // applies 005
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hist, err := db.History(ctx, "user.b", 0, 0)
	if err != nil || len(hist) != 2 || hist[0].EventID != 2 || hist[0].UserText != "in ci it is fine" || hist[0].FrameID != "f1" ||
		!cmp.Equal(hist[0].Scope.ContextTags, []string{"ci"}) || hist[1].EventID != 3 || hist[1].Alpha != 3 {
		t.Fatalf("user.b's events after migrating: %+v, %v", hist, err)
	}
	for _, q := range []string{
		"UPDATE persona_events SET user_text = 'forged' WHERE event_id = 2",
		"DELETE FROM persona_events WHERE event_id = 1",
	} {
		if _, err := d.write.Exec(q); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s after migrating: %v, want the append-only refusal", q, err)
		}
	}
	var indexes, tags int
	if err := d.read.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'index'
		AND name IN ('persona_events_rule', 'persona_events_frame', 'persona_rules_registry')`).Scan(&indexes); err != nil || indexes != 3 {
		t.Errorf("%d of the 3 indexes after migrating (%v)", indexes, err)
	}
	res := memorytest.MustRecord(t, db, engine.Correction{RuleID: "user.b", Polarity: engine.Counter, Scope: engine.Scope{ContextTags: []string{"ci"}}})
	if res.EventID != 4 {
		t.Errorf("the next event has id %d, want 4", res.EventID)
	}
	if err := d.read.QueryRow(`SELECT n FROM counterexample_tags WHERE rule_id = 'user.b' AND tag = 'ci'`).Scan(&tags); err != nil || tags != 2 {
		t.Errorf("ci counted %d times after migrating (%v), want 2", tags, err)
	}
	for _, et := range []engine.EventType{"promotion", "violation"} {
		if err := db.Write(ctx, t0, func(tx *store.Tx) error {
			_, err := tx.AppendEvent(engine.Event{RuleID: "reg.a", EventType: et, At: t0})
			return err
		}); err != nil {
			t.Errorf("a %s event after migrating: %v", et, err)
		}
	}
	for id, want := range map[string]string{"reg.a": "team.yaml", "user.b": ""} {
		var got string
		if err := d.read.QueryRow(`SELECT coalesce(registry, '') FROM persona_rules WHERE rule_id = ?`, id).Scan(&got); err != nil || got != want {
			t.Errorf("%s: registry %q (%v), want %q", id, got, err, want)
		}
	}
	files, err := db.Registries(ctx)
	if err != nil || len(files) != 1 || files[0].Name != "team.yaml" || string(files[0].YAML) != "v1:" || files[0].SyncedAt != t0 {
		t.Fatalf("Registries after migrating = %+v, %v", files, err)
	}
	// team.yaml owns reg.a: the default pack cannot define it, team.yaml archives it.
	if _, err := memory.ApplyRegistry(ctx, db, memory.RegistrySync{Definitions: []engine.Definition{storetest.Def("reg.a", "Use pnpm")}, At: t0}); engine.ErrorCode(err) != engine.ECONFLICT {
		t.Errorf("the default pack defining team.yaml's reg.a: %v, want ECONFLICT", err)
	}
	if res, err := memory.ApplyRegistry(ctx, db, memory.RegistrySync{Name: "team.yaml", At: t0}); err != nil || !cmp.Equal(res.Archived, []string{"reg.a"}) {
		t.Errorf("an empty team.yaml = %+v, %v: want reg.a archived", res, err)
	}
}

// TestMigrateWithoutRegistryInForce: registry rules synced with no registry
// recorded belong to the default pack.
func TestMigrateWithoutRegistryInForce(t *testing.T) {
	ctx := context.Background()
	path, w := migratedTo(t, "004")
	now := sqldriver.FormatTime(t0)
	if _, err := w.ExecContext(ctx, `INSERT INTO persona_rules (rule_id, category, rule_text, first_seen, last_correction, source,
		definition_sha256, created_at, updated_at) VALUES ('reg.a', 'tool_preference', 'Use pnpm', ?1, ?1, 'registry', 'abc', ?1, ?1)`, now); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	db, d, err := openPath(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var got string
	if err := d.read.QueryRow(`SELECT registry FROM persona_rules WHERE rule_id = 'reg.a'`).Scan(&got); err != nil || got != memory.DefaultRegistry {
		t.Errorf("registry %q (%v), want %q", got, err, memory.DefaultRegistry)
	}
	if files, err := db.Registries(ctx); err != nil || len(files) != 0 {
		t.Errorf("Registries = %+v, %v: want none", files, err)
	}
}
