package tenant

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Exists reports whether tenant name has a store yet (its SQLite file, or
// its PostgreSQL schema), without creating one: for commands that read a
// tenant's memory (export) and must not make an empty one for a misspelt
// name. Default always exists. Errors: EINVALID for a bad name;
// EUNAVAILABLE when the PostgreSQL server cannot be asked.
func (s *Stores) Exists(ctx context.Context, name string) (bool, error) {
	if name == Default {
		return true, nil
	}
	if err := CheckName(name); err != nil {
		return false, err
	}
	if store.DriverName(s.base) != "postgres" {
		_, err := os.Stat(SQLitePath(s.base, name))
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, fs.ErrNotExist):
			return false, nil
		}
		return false, engine.Errorf(engine.EUNAVAILABLE, "tenant %s: cannot look at its store: %v", name, err)
	}
	p, err := newPGPlace(s.base, name)
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, p.adminURL())
	if err != nil {
		return false, engine.Errorf(engine.EUNAVAILABLE, "tenant %s: cannot connect to PostgreSQL: %v", name, err)
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, p.schema).Scan(&exists); err != nil {
		return false, engine.Errorf(engine.EUNAVAILABLE, "tenant %s: cannot look up its schema %s: %v", name, p.schema, err)
	}
	return exists, nil
}

// Where names tenant name's store for messages, without credentials:
// "file <path>" or "PostgreSQL schema <schema>". It is "" for a bad name.
func (s *Stores) Where(name string) string {
	if CheckName(name) != nil {
		return ""
	}
	if store.DriverName(s.base) != "postgres" {
		return "file " + SQLitePath(s.base, name)
	}
	p, err := newPGPlace(s.base, name)
	if err != nil {
		return ""
	}
	return "PostgreSQL schema " + p.schema
}
