package sqlite

import (
	"context"
	"database/sql"
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

// migrate applies the migrations of fsys that w has not applied yet
// (sqldriver.Migrate), each in its own BEGIN IMMEDIATE transaction, at at.
// A database whose schema is newer than fsys's newest migration is refused
// with EUNAVAILABLE.
func migrate(ctx context.Context, w *sql.DB, fsys fs.FS, at time.Time) error {
	ms, err := sqldriver.LoadMigrations(fsys)
	if err != nil {
		return err
	}
	return sqldriver.Migrate(ctx, migrationDB{w}, stmts.Dialect(), ms, at)
}

// migrationDB runs sqldriver.Migrate's statements on the write pool, or
// (tx set) in one of its transactions.
type migrationDB struct {
	db interface {
		ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
		QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
	}
}

func (m migrationDB) Exec(ctx context.Context, op, q string, args ...any) error {
	_, err := m.db.ExecContext(ctx, q, args...)
	return dbErr(op, err)
}

func (m migrationDB) Int(ctx context.Context, op, q string, args ...any) (int, error) {
	var n int
	err := m.db.QueryRowContext(ctx, q, args...).Scan(&n)
	return n, dbErr(op, err)
}

func (m migrationDB) Tx(ctx context.Context, fn func(sqldriver.MigrationDB) error) error {
	tx, err := m.db.(*sql.DB).BeginTx(ctx, nil)
	if err != nil {
		return dbErr("begin migration", err)
	}
	defer tx.Rollback()
	if err := fn(migrationDB{tx}); err != nil {
		return err
	}
	return dbErr("commit migration", tx.Commit())
}

// LatestSchemaVersion is the package's LatestSchemaVersion.
func (d *Driver) LatestSchemaVersion() int { return LatestSchemaVersion() }

// SchemaVersion returns the newest migration applied to the database. Its
// errors are internal.
func (d *Driver) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := d.read.QueryRowContext(ctx, sqldriver.QuerySchemaVersion).Scan(&v); err != nil {
		return 0, dbErr("read the schema version", err)
	}
	return v, nil
}

// Migrations lists the applied migrations, oldest first. Its errors are internal.
func (d *Driver) Migrations(ctx context.Context) ([]store.Migration, error) {
	return sqldriver.Collect(d.reader(ctx).Query, "list migrations", sqldriver.QueryMigrations, nil, sqldriver.ScanMigration)
}
