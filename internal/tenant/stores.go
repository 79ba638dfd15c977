package tenant

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Stores opens the stores of named tenants beside a default store (what
// MemoryOpener opens memories over). It is safe for concurrent use.
type Stores struct {
	base string // the default store's DSN: a SQLite path or a PostgreSQL URL
	log  *slog.Logger

	mu       sync.Mutex
	warnedPG bool // the "no role per tenant" warning was logged
}

// NewStores returns the opener of the tenants' stores that live beside the
// store base (a SQLite file path or a PostgreSQL URL, as --db takes it).
func NewStores(base string, log *slog.Logger) *Stores {
	if log == nil {
		log = slog.Default()
	}
	return &Stores{base: base, log: log}
}

// Location returns where tenant name's store is: a SQLite file path, or a
// PostgreSQL URL (password kept) whose search_path is the tenant's schema.
// For Default it is the base itself. Errors: EINVALID for a bad name or a
// base URL that does not parse.
func (s *Stores) Location(name string) (string, error) {
	if name == Default {
		return s.base, nil
	}
	if err := CheckName(name); err != nil {
		return "", err
	}
	if store.DriverName(s.base) == "postgres" {
		p, err := newPGPlace(s.base, name)
		if err != nil {
			return "", err
		}
		return p.url(false), nil
	}
	return SQLitePath(s.base, name), nil
}

// SQLitePath is the file of tenant name beside the SQLite store base:
// <folder of base>/tenants/<name>.db.
func SQLitePath(base, name string) string {
	return filepath.Join(filepath.Dir(base), "tenants", name+".db")
}

// OpenStore opens tenant name's store, creating it when missing (a SQLite
// file, or a PostgreSQL schema with its role: see the package doc; one log
// line names the tenant and the store created), and migrates it. Default is not a named tenant's: the caller holds that store.
// Errors: EINVALID for a bad or the default name; store.OpenWith's; for
// PostgreSQL, EUNAVAILABLE when the schema cannot be created or exists
// owned by another role than the tenant's.
func (s *Stores) OpenStore(ctx context.Context, name string) (*store.DB, error) {
	if name == Default {
		return nil, engine.Errorf(engine.EINVALID, "the default tenant's store is the server's own")
	}
	if err := CheckName(name); err != nil {
		return nil, err
	}
	dsn := SQLitePath(s.base, name)
	where := "file " + dsn
	_, statErr := os.Stat(dsn)
	created := errors.Is(statErr, fs.ErrNotExist)
	if store.DriverName(s.base) == "postgres" {
		p, err := newPGPlace(s.base, name)
		if err != nil {
			return nil, err
		}
		withRole, made, err := p.provision(ctx)
		if err != nil {
			return nil, err
		}
		if !withRole {
			s.warnNoRole()
		}
		dsn, where, created = p.url(withRole), "schema "+p.schema, made
	}
	db, err := store.OpenWith(ctx, dsn, store.Options{Logger: s.log})
	if err == nil && created {
		// A misspelt tenant name (lexsona mcp --tenant) ends up here too.
		s.log.Info("new tenant memory: created its store", "tenant", name, "store", where)
	}
	return db, err
}

func (s *Stores) warnNoRole() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.warnedPG {
		s.warnedPG = true
		s.log.Warn("tenant stores: the PostgreSQL role may not create roles, so tenants are kept apart by their schemas " +
			"(search_path) only; grant it CREATEROLE to give every tenant a role of its own")
	}
}
