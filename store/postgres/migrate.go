package postgres

import (
	"context"
	"io/fs"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/migrations"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// embedded is the migrations of this build; the tests replace it.
var embedded fs.FS = migrations.Postgres

// LatestSchemaVersion is the newest PostgreSQL schema version this build knows.
func LatestSchemaVersion() int {
	ms, err := sqldriver.LoadMigrations(embedded)
	if err != nil {
		panic(err) // the embedded files are checked by the migrations tests
	}
	return ms[len(ms)-1].Version
}

// migrate applies the migrations d's schema has not applied yet
// (sqldriver.Migrate), each in its own transaction, holding the schema's
// migration lock (a session advisory lock) throughout, so that instances
// starting at once apply each migration once. A schema newer than the
// newest embedded migration is refused with EUNAVAILABLE.
func migrate(ctx context.Context, d *Driver) error {
	ms, err := sqldriver.LoadMigrations(embedded)
	if err != nil {
		return err
	}
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return dbErr("connect", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", d.migrateKey); err != nil {
		return dbErr("take the migration lock", err)
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", d.migrateKey); err != nil {
			conn.Conn().Close(context.Background()) // closing the session releases its locks
		}
	}()
	return sqldriver.Migrate(ctx, migrationDB{conn}, stmts.Dialect(), ms, d.clock())
}

// migrationDB runs sqldriver.Migrate's statements on one connection, or
// (in Tx) in one of its transactions.
type migrationDB struct {
	c interface {
		Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
		QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
		Begin(ctx context.Context) (pgx.Tx, error)
	}
}

func (m migrationDB) Exec(ctx context.Context, op, q string, args ...any) error {
	_, err := m.c.Exec(ctx, q, args...)
	return dbErr(op, err)
}

func (m migrationDB) Int(ctx context.Context, op, q string, args ...any) (int, error) {
	var n int
	err := m.c.QueryRow(ctx, q, args...).Scan(&n)
	return n, dbErr(op, err)
}

func (m migrationDB) Tx(ctx context.Context, fn func(sqldriver.MigrationDB) error) error {
	return pgx.BeginFunc(ctx, m.c, func(tx pgx.Tx) error { return fn(migrationDB{tx}) })
}

// checkSchema refuses, on a server opened read-only, a schema that is
// missing or newer than this build knows.
func (d *Driver) checkSchema(ctx context.Context) error {
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return dbErr("connect", err)
	}
	defer conn.Release()
	v, err := schemaVersion(ctx, conn)
	if err != nil {
		return err
	}
	if latest := LatestSchemaVersion(); v > latest {
		return sqldriver.NewerSchema(v, latest)
	}
	if v == 0 {
		return engine.Errorf(engine.EUNAVAILABLE, "PostgreSQL database %s only accepts reads and holds no LexSona schema", d.location)
	}
	return nil
}

func schemaVersion(ctx context.Context, conn *pgxpool.Conn) (int, error) {
	var v int
	err := conn.QueryRow(ctx, sqldriver.QuerySchemaVersion).Scan(&v)
	if pgCode(err) == "42P01" { // undefined_table: nothing applied yet
		return 0, nil
	}
	return v, dbErr("read the schema version", err)
}

// LatestSchemaVersion is the package's LatestSchemaVersion.
func (d *Driver) LatestSchemaVersion() int { return LatestSchemaVersion() }

// SchemaVersion returns the newest migration applied. Its errors are
// internal (EUNAVAILABLE when the server cannot be reached).
func (d *Driver) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := d.pool.QueryRow(ctx, sqldriver.QuerySchemaVersion).Scan(&v)
	return v, dbErr("read the schema version", err)
}

// Migrations lists the applied migrations, oldest first. Its errors are
// SchemaVersion's.
func (d *Driver) Migrations(ctx context.Context) ([]store.Migration, error) {
	return sqldriver.Collect(d.reader(ctx).Query, "list migrations", sqldriver.QueryMigrations, nil, sqldriver.ScanMigration)
}
