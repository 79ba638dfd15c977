package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"time"

	"github.com/lexsona/lexsona/migrations"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// LatestSchemaVersion is the newest SQLite schema version this build knows.
func LatestSchemaVersion() int {
	ms, err := sqldriver.LoadMigrations(migrations.SQLite)
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
func migrate(ctx context.Context, w *sql.DB, fsys fs.FS, at time.Time) error {
	ms, err := sqldriver.LoadMigrations(fsys)
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
		return sqldriver.NewerSchema(current, latest)
	}
	for _, m := range ms {
		if m.Version <= current {
			continue
		}
		if err := applyMigration(ctx, w, m, at); err != nil {
			return err
		}
	}
	return nil
}

func applyMigration(ctx context.Context, w *sql.DB, m sqldriver.Migration, at time.Time) error {
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
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return fmt.Errorf("store: migration %03d_%s: %w", m.Version, m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
		m.Version, m.Name, sqldriver.FormatTime(at)); err != nil {
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
	return sqldriver.Collect(d.reader(ctx).Query, "list migrations", sqldriver.QueryMigrations, nil, sqldriver.ScanMigration)
}
