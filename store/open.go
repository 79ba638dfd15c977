package store

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// Options configure OpenWith; the zero value is Open's defaults.
type Options struct {
	// Logger gets what no caller can be told, such as a failed background
	// checkpoint (slog.Default()).
	Logger *slog.Logger
	// Clock is the time of day for what the store times itself — the
	// embeddings version cache, how often a fault is probed, a SQLite
	// checkpoint's backoff, when a migration was applied, how often the
	// shared idempotency keys are pruned — (nil: the system clock). The
	// time of a write is never the clock's: DB.Write takes it from its
	// caller.
	Clock func() time.Time
}

// Now returns the clock of o: o.Clock, or the system clock when o has
// none. It is the store's one reference to the system clock.
func (o Options) Now() func() time.Time {
	if o.Clock != nil {
		return o.Clock
	}
	return time.Now
}

// Opener opens a driver's database from a data source name. Its errors are
// Open's.
type Opener func(ctx context.Context, dsn string, opts Options) (Driver, error)

// Open opens the database dsn names — a file path (SQLite, created with
// its folder when missing) or a URL whose scheme a registered driver
// serves (postgres://) — applies the driver's migrations and returns it
// ready for use. Errors: EINVALID for an empty dsn or a URL whose scheme
// no driver built into this program serves (mysql://, a misspelt
// postgres://); EUNAVAILABLE when no driver serves file paths, when the
// database cannot be created or opened, is not a database of that kind,
// or has a schema newer than this build knows (upgrade lexsona).
func Open(ctx context.Context, dsn string) (*DB, error) {
	return OpenWith(ctx, dsn, Options{})
}

// OpenWith is Open with options. Its errors are Open's.
func OpenWith(ctx context.Context, dsn string, opts Options) (*DB, error) {
	k, err := KindOf(dsn)
	if err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	opts.Clock = opts.Now()
	d, err := k.Open(ctx, dsn, opts)
	if err != nil {
		return nil, err
	}
	return New(d, opts), nil
}

// New returns the store over an open driver (for drivers' own tests and
// callers that configure a driver themselves), with the clock of opts.
// Closing the DB closes d.
func New(d Driver, opts Options) *DB {
	if d == nil {
		panic(fmt.Sprintf("store: New(%v)", d))
	}
	return &DB{drv: d, clock: opts.Now()}
}

// notBuiltIn is the error of a data source name no registered driver
// serves.
func notBuiltIn(code, what string) error {
	return engine.Errorf(code, "%s: give %s", what, describeKinds())
}
