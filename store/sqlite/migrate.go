package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/migrations"
	"github.com/lexsona/lexsona/store"
)

// migration is one embedded migration file: its number, its name (the
// file name without the number and .sql) and its SQL.
type migration struct {
	Version int
	Name    string
	sql     string
}

var migrationName = regexp.MustCompile(`^(\d+)_([a-z0-9_]+)\.sql$`)

// loadMigrations reads NNN_name.sql files from fsys, ordered by number, and
// checks that the numbers run 1, 2, 3… without gaps or duplicates.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("store: list migrations: %w", err)
	}
	var out []migration
	for _, name := range names {
		m := migrationName.FindStringSubmatch(name)
		if m == nil {
			return nil, fmt.Errorf("store: migration file %s: want NNN_name.sql", name)
		}
		v, _ := strconv.Atoi(m[1])
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("store: read migration %s: %w", name, err)
		}
		out = append(out, migration{Version: v, Name: m[2], sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("store: migration %03d_%s: want version %d (numbers run from 1 without gaps)", m.Version, m.Name, i+1)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("store: no migrations embedded")
	}
	return out, nil
}

// LatestSchemaVersion is the newest SQLite schema version this build knows.
func LatestSchemaVersion() int {
	ms, err := loadMigrations(migrations.SQLite)
	if err != nil {
		panic(err) // the embedded files are checked by the migrations tests
	}
	return ms[len(ms)-1].Version
}

// migrate applies the migrations of fsys that w has not applied yet, in order,
// each in its own BEGIN IMMEDIATE transaction together with its row in
// schema_migrations. Each one is re-checked inside its transaction, so two
// processes opening a new database at once apply it once. A database whose
// schema is newer than fsys's newest migration is refused with EUNAVAILABLE.
func migrate(ctx context.Context, w *sql.DB, fsys fs.FS) error {
	ms, err := loadMigrations(fsys)
	if err != nil {
		return err
	}
	if _, err := w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL
	) STRICT`); err != nil {
		return dbErr("create schema_migrations", err)
	}
	latest := ms[len(ms)-1].Version
	var current int
	if err := w.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		return dbErr("read the schema version", err)
	}
	if current > latest {
		return engine.Errorf(engine.EUNAVAILABLE, "database schema version %d is newer than this lexsona build knows (%d): upgrade lexsona", current, latest)
	}
	for _, m := range ms {
		if m.Version <= current {
			continue
		}
		if err := applyMigration(ctx, w, m); err != nil {
			return err
		}
	}
	return nil
}

func applyMigration(ctx context.Context, w *sql.DB, m migration) error {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return dbErr("begin migration", err)
	}
	defer tx.Rollback()
	var done int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version = ?", m.Version).Scan(&done); err != nil {
		return dbErr("read schema_migrations", err)
	}
	if done > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("store: migration %03d_%s: %w", m.Version, m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
		m.Version, m.Name, fmtTime(time.Now())); err != nil {
		return dbErr("record migration", err)
	}
	if err := tx.Commit(); err != nil {
		return dbErr("commit migration", err)
	}
	return nil
}

// LatestSchemaVersion is the package's LatestSchemaVersion.
func (d *Driver) LatestSchemaVersion() int { return LatestSchemaVersion() }

// SchemaVersion returns the newest migration applied to the database. Its
// errors are internal.
func (d *Driver) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := d.read.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&v); err != nil {
		return 0, dbErr("read the schema version", err)
	}
	return v, nil
}

// Migrations lists the applied migrations, oldest first. Its errors are internal.
func (d *Driver) Migrations(ctx context.Context) ([]store.Migration, error) {
	rows, err := d.read.QueryContext(ctx, "SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
	if err != nil {
		return nil, dbErr("list migrations", err)
	}
	defer rows.Close()
	var out []store.Migration
	for rows.Next() {
		var m store.Migration
		var at string
		if err := rows.Scan(&m.Version, &m.Name, &at); err != nil {
			return nil, dbErr("list migrations", err)
		}
		if m.AppliedAt, err = parseTime(at); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, dbErr("list migrations", rows.Err())
}
