package memory

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

// The administration of the memory's store: where it is, its schema, the
// check of its pages, and the registries it would hold in force.

// DefaultIntegrityTimeout bounds QuickCheck when the caller gives no time.
const DefaultIntegrityTimeout = store.DefaultIntegrityTimeout

// Location says where the memory is kept: the absolute path of a SQLite
// file, or a PostgreSQL URL without its password.
func (s *Service) Location() string { return s.db.Path() }

// SchemaVersion returns the newest migration applied to the memory's
// store. Its errors are internal.
func (s *Service) SchemaVersion(ctx context.Context) (int, error) { return s.db.SchemaVersion(ctx) }

// QuickCheck checks the structure of the memory's store (SQLite: PRAGMA
// quick_check) for at most limit (<= 0: DefaultIntegrityTimeout); finished
// is false, with no error, when the time ran out first. Errors:
// EUNAVAILABLE saying the store is damaged (Damaged reports it), internal
// errors when the check could not run.
func (s *Service) QuickCheck(ctx context.Context, limit time.Duration) (finished bool, err error) {
	return s.db.QuickCheck(ctx, limit)
}

// Damaged reports whether err says the store's file is damaged.
func Damaged(err error) bool { return store.Fault(err) == store.FaultCorrupt }

// InForceWith is InForce with reg in force too, in place of the recorded
// source of the same name: the registries that would be in force once reg
// is synced (a nil reg is InForce). Errors: InForce's.
func (s *Service) InForceWith(ctx context.Context, reg *registry.Registry) (*registry.Registry, error) {
	return InForceWith(ctx, s.db, reg)
}
