package sqldriver

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Migration is one numbered migration file: its number, its name (the file
// name without the number and .sql) and its SQL.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

var migrationName = regexp.MustCompile(`^(\d+)_([a-z0-9_]+)\.sql$`)

// LoadMigrations reads the NNN_name.sql files at fsys's root, ordered by
// number. Its errors (internal) name a file with another name, a number
// missing or repeated (numbers run 1, 2, 3…), or no file at all.
func LoadMigrations(fsys fs.FS) ([]Migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("store: list migrations: %w", err)
	}
	var out []Migration
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
		out = append(out, Migration{Version: v, Name: m[2], SQL: string(body)})
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

// LatestVersion is the newest version of fsys's migrations, 0 when they
// cannot be read (LoadMigrations' error).
func LatestVersion(fsys fs.FS) int {
	ms, err := LoadMigrations(fsys)
	if err != nil {
		return 0
	}
	return ms[len(ms)-1].Version
}

// NewerSchema is the EUNAVAILABLE error of a database whose schema version
// current is newer than latest, the newest this build knows.
func NewerSchema(current, latest int) error {
	return engine.Errorf(engine.EUNAVAILABLE, "database schema version %d is newer than this lexsona build knows (%d): upgrade lexsona", current, latest)
}

// The bookkeeping of migrations, the same on every database: the table
// schema_migrations holds one row per migration applied.
const (
	// QueryMigrations lists the applied migrations, oldest first, in
	// ScanMigration's columns.
	QueryMigrations = "SELECT version, name, applied_at FROM schema_migrations ORDER BY version"
	// QuerySchemaVersion is the newest migration applied (0: none).
	QuerySchemaVersion = "SELECT coalesce(max(version), 0) FROM schema_migrations"
	createMigrations   = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    integer PRIMARY KEY,
	name       text NOT NULL,
	applied_at text NOT NULL
)`
	migrationApplied = "SELECT count(*) FROM schema_migrations WHERE version = $1"
	migrationInsert  = "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)"
)

// MigrationDB is what Migrate needs of a database. Its methods return the
// driver's errors (mapped as its statements' are).
type MigrationDB interface {
	// Exec runs q; op names it in errors.
	Exec(ctx context.Context, op, q string, args ...any) error
	// Int runs q, which returns one integer; op names it in errors.
	Int(ctx context.Context, op, q string, args ...any) (int, error)
	// Tx runs fn in one transaction, committed when fn returns nil and
	// rolled back otherwise.
	Tx(ctx context.Context, fn func(MigrationDB) error) error
}

// Migrate creates schema_migrations when it is missing (in d's dialect)
// and applies the migrations of ms that db has not applied yet, in order,
// each in its own transaction with its row, applied at at. Each one is
// re-checked inside its transaction, so two processes migrating one new
// database at once apply it once. Errors: NewerSchema when db's schema is
// newer than ms's newest migration; the error of a migration's SQL, naming
// it; db's.
func Migrate(ctx context.Context, db MigrationDB, d Dialect, ms []Migration, at time.Time) error {
	if err := db.Exec(ctx, "create schema_migrations", createMigrations+d.TableOptions); err != nil {
		return err
	}
	current, err := db.Int(ctx, "read the schema version", QuerySchemaVersion)
	if err != nil {
		return err
	}
	latest := ms[len(ms)-1].Version
	if current > latest {
		return NewerSchema(current, latest)
	}
	applied, insert := d.rebind(migrationApplied), d.rebind(migrationInsert)
	for _, m := range ms {
		if m.Version <= current {
			continue
		}
		err := db.Tx(ctx, func(tx MigrationDB) error {
			if done, err := tx.Int(ctx, "read schema_migrations", applied, m.Version); err != nil || done > 0 {
				return err
			}
			if err := tx.Exec(ctx, "apply migration", m.SQL); err != nil {
				return fmt.Errorf("store: migration %03d_%s: %w", m.Version, m.Name, err)
			}
			return tx.Exec(ctx, "record migration", insert, m.Version, m.Name, FormatTime(at))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// ScanMigration reads a schema_migrations row: version, name, applied_at.
func ScanMigration(sc Scanner) (store.Migration, error) {
	var m store.Migration
	var at string
	if err := sc.Scan(&m.Version, &m.Name, &at); err != nil {
		return m, err
	}
	var err error
	m.AppliedAt, err = ParseTime(at)
	return m, err
}
