package tenant

import (
	"context"
	"log/slog"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Stores opens the stores of named tenants beside a default store (what
// MemoryOpener opens memories over): where each one lives is the base
// store's driver's to say (store.Tenants). It is safe for concurrent use.
type Stores struct {
	base  string // the default store's data source name, as --db takes it
	log   *slog.Logger
	clock func() time.Time // the stores' (store.Options.Clock)
}

// NewStores returns the opener of the tenants' stores that live beside the
// store base (a SQLite file path or a PostgreSQL URL, as --db takes it),
// each timed by clock.
func NewStores(base string, log *slog.Logger, clock func() time.Time) *Stores {
	if log == nil {
		log = slog.Default()
	}
	return &Stores{base: base, log: log, clock: clock}
}

// tenants returns where the base store's driver keeps named tenant name:
// EINVALID for a bad or the default name; store.TenantsOf's errors.
func (s *Stores) tenants(name string) (store.Tenants, error) {
	if name == Default {
		return nil, engine.Errorf(engine.EINVALID, "the default tenant's store is the server's own")
	}
	if err := CheckName(name); err != nil {
		return nil, err
	}
	return store.TenantsOf(s.base)
}

// Location returns where tenant name's store is (its data source name,
// credentials kept); for Default it is the base itself. Errors: EINVALID
// for a bad name or a base the driver cannot place tenants beside;
// store.TenantsOf's.
func (s *Stores) Location(name string) (string, error) {
	if name == Default {
		return s.base, nil
	}
	t, err := s.tenants(name)
	if err != nil {
		return "", err
	}
	return t.Location(s.base, name)
}

// OpenStore opens tenant name's store, creating it when missing (its
// driver's store.Tenants.Provision; one log line names the tenant and the
// store created), and migrates it. Default is not a named tenant's: the
// caller holds that store. Errors: EINVALID for a bad or the default
// name; the driver's Provision's (EUNAVAILABLE when the store cannot be
// made); store.OpenWith's.
func (s *Stores) OpenStore(ctx context.Context, name string) (*store.DB, error) {
	t, err := s.tenants(name)
	if err != nil {
		return nil, err
	}
	dsn, created, err := t.Provision(ctx, s.base, name, s.log)
	if err != nil {
		return nil, err
	}
	db, err := store.OpenWith(ctx, dsn, store.Options{Logger: s.log, Clock: s.clock})
	if err == nil && created {
		// A misspelt tenant name (lexsona mcp --tenant) ends up here too.
		s.log.Info("new tenant memory: created its store", "tenant", name, "store", t.Where(s.base, name))
	}
	return db, err
}

// Exists reports whether tenant name has a store yet, without creating
// one: for commands that read a tenant's memory (export) and must not
// make an empty one for a misspelt name. Default always exists. Errors:
// EINVALID for a bad name; the driver's (EUNAVAILABLE when its server
// cannot be asked).
func (s *Stores) Exists(ctx context.Context, name string) (bool, error) {
	if name == Default {
		return true, nil
	}
	t, err := s.tenants(name)
	if err != nil {
		return false, err
	}
	return t.Exists(ctx, s.base, name)
}

// Where names tenant name's store for messages, without credentials
// ("file <path>", "PostgreSQL schema <schema>"). It is "" for a bad name.
func (s *Stores) Where(name string) string {
	t, err := s.tenants(name)
	if err != nil {
		return ""
	}
	return t.Where(s.base, name)
}
