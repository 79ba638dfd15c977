package store

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// Options configure OpenWith. Clock is required.
type Options struct {
	// Logger gets what no caller can be told, such as a failed background
	// checkpoint (slog.Default()).
	Logger *slog.Logger
	// Clock is the time of day for what the store times itself — the
	// embeddings version cache, how often a fault is probed, a SQLite
	// checkpoint's backoff, when a migration was applied, how often the
	// shared idempotency keys are pruned —, the caller's (the composition
	// root gives its configured clock): the store never reads the time of
	// day on its own. The time of a write is never the clock's either:
	// DB.Write takes it from its caller.
	Clock func() time.Time
	// ReadOnly says the caller only reads (a hook answering one event): a
	// driver that can opens the database for reading alone — no migration,
	// cleaning or checkpoint — and every write fails with the read-only
	// fault. A database whose schema is not this build's is refused
	// (EUNAVAILABLE): open it for writing instead, which migrates it.
	ReadOnly bool
}

// Check is nil when o can open a store: EINVALID when it has no Clock.
func (o Options) Check() error {
	if o.Clock == nil {
		return engine.Errorf(engine.EINVALID, "store: no clock: the caller gives the store its clock (Options.Clock)")
	}
	return nil
}

// Opener opens a driver's database from a data source name. Its errors are
// Open's.
type Opener func(ctx context.Context, dsn string, opts Options) (Driver, error)

// OpenWith opens the database dsn names — a file path (SQLite, created
// with its folder when missing) or a URL whose scheme a registered driver
// serves (postgres://) — applies the driver's migrations and returns it
// ready for use, timing itself by opts.Clock. Errors: EINVALID for options
// without a clock, an empty dsn or a URL whose scheme no driver built into
// this program serves (mysql://, a misspelt postgres://); EUNAVAILABLE when
// no driver serves file paths, when the database cannot be created or
// opened, is not a database of that kind, or has a schema newer than this
// build knows (upgrade lexsona).
func OpenWith(ctx context.Context, dsn string, opts Options) (*DB, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	k, err := KindOf(dsn)
	if err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	d, err := k.Open(ctx, dsn, opts)
	if err != nil {
		return nil, err
	}
	return New(d, opts), nil
}

// New returns the store over an open driver (for drivers' own tests and
// callers that configure a driver themselves), with the clock of opts.
// Closing the DB closes d. It panics without a driver or a clock, a
// mistake of the caller's code.
func New(d Driver, opts Options) *DB {
	if d == nil || opts.Clock == nil {
		panic(fmt.Sprintf("store: New(%v) with clock %v", d, opts.Clock != nil))
	}
	return &DB{drv: d, clock: opts.Clock}
}

// notBuiltIn is the error of a data source name no registered driver
// serves.
func notBuiltIn(code, what string) error {
	return engine.Errorf(code, "%s: give %s", what, describeKinds())
}
