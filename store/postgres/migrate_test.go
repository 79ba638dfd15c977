package postgres

import (
	"context"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/migrations"
	"github.com/lexsona/lexsona/store"
)

// TestMigrationsApplyOnce: a new schema gets every migration; opening it
// again applies nothing.
func TestMigrationsApplyOnce(t *testing.T) {
	ctx := context.Background()
	db, _, dsn := mustOpen(t)
	v, err := db.SchemaVersion(ctx)
	if err != nil || v != LatestSchemaVersion() || v < 1 {
		t.Fatalf("SchemaVersion = %d, %v; want %d", v, err, LatestSchemaVersion())
	}
	first, err := db.Migrations(ctx)
	if err != nil || len(first) != v || first[0].Name != "init" {
		t.Fatalf("Migrations = %+v, %v", first, err)
	}
	again, _ := mustOpenURL(t, dsn)
	second, err := again.Migrations(ctx)
	if err != nil || len(second) != len(first) || !second[0].AppliedAt.Equal(first[0].AppliedAt) {
		t.Errorf("after reopening: %+v, %v; want %+v", second, err, first)
	}
}

// TestMigrationsConcurrentOpens: instances opening a new schema at once
// apply each migration once (the migration lock) and all succeed.
func TestMigrationsConcurrentOpens(t *testing.T) {
	dsn := testenv.PGSchemaURL(t)
	const n = 6
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			d, err := Open(context.Background(), dsn, store.Options{Clock: time.Now})
			if err == nil {
				err = d.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("instance %d: %v", i, err)
		}
	}
	_, d := mustOpenURL(t, dsn)
	var rows int
	if err := d.pool.QueryRow(context.Background(), "SELECT count(*) FROM schema_migrations").Scan(&rows); err != nil || rows != LatestSchemaVersion() {
		t.Errorf("schema_migrations has %d rows (%v), want %d", rows, err, LatestSchemaVersion())
	}
}

// TestNewerSchemaRefused: a schema migrated by a newer build is refused
// with SQLite's words.
func TestNewerSchemaRefused(t *testing.T) {
	_, d, dsn := mustOpen(t)
	latest := LatestSchemaVersion()
	mustExec(t, d, "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, 'future', 'x')", latest+1)
	_, err := Open(context.Background(), dsn, store.Options{Clock: time.Now})
	wantCode(t, err, engine.EUNAVAILABLE)
	want := "database schema version " + strconv.Itoa(latest+1) + " is newer than this lexsona build knows (" + strconv.Itoa(latest) + "): upgrade lexsona"
	if engine.ErrorMessage(err) != want {
		t.Errorf("message %q, want %q", engine.ErrorMessage(err), want)
	}
}

// TestFailedMigrationRollsBack: a migration that fails leaves nothing of
// itself behind and the schema at the version before it.
func TestFailedMigrationRollsBack(t *testing.T) {
	body, err := fs.ReadFile(migrations.Postgres, "001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	embedded = fstest.MapFS{
		"001_init.sql":   {Data: body},
		"002_broken.sql": {Data: []byte("CREATE TABLE half_done (x int);\nSELECT no_such_function();")},
	}
	t.Cleanup(func() { embedded = migrations.Postgres })
	dsn := testenv.PGSchemaURL(t)
	_, err = Open(context.Background(), dsn, store.Options{Clock: time.Now})
	if err == nil || !strings.Contains(err.Error(), "002_broken") {
		t.Fatalf("Open: %v, want the failure of 002_broken", err)
	}
	embedded = migrations.Postgres
	db, d := mustOpenURL(t, dsn)
	if v, err := db.SchemaVersion(context.Background()); err != nil || v != LatestSchemaVersion() {
		t.Errorf("SchemaVersion = %d, %v; want %d", v, err, LatestSchemaVersion())
	}
	var exists bool
	if err := d.pool.QueryRow(context.Background(), "SELECT to_regclass('half_done') IS NOT NULL").Scan(&exists); err != nil || exists {
		t.Errorf("half_done exists=%v (%v): the failed migration was not rolled back", exists, err)
	}
}
