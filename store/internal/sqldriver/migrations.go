package sqldriver

import (
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"

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

// QueryMigrations lists the applied migrations, oldest first, in
// ScanMigration's columns (the same SQL on every database).
const QueryMigrations = "SELECT version, name, applied_at FROM schema_migrations ORDER BY version"

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
