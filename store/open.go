package store

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
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

var (
	driversMu sync.RWMutex
	drivers   = map[string]Opener{}
)

// Register makes a driver available to Open under name ("sqlite",
// "postgres"). A driver package calls it from its init function, so a
// program selects the databases it supports by importing their packages
// (import _ "github.com/lexsona/lexsona/store/sqlite"). It panics when
// open is nil or name is registered already.
func Register(name string, open Opener) {
	driversMu.Lock()
	defer driversMu.Unlock()
	if open == nil {
		panic("store: Register of a nil opener for " + name)
	}
	if _, dup := drivers[name]; dup {
		panic("store: Register called twice for driver " + name)
	}
	drivers[name] = open
}

// Drivers returns the names of the registered drivers, sorted.
func Drivers() []string {
	driversMu.RLock()
	defer driversMu.RUnlock()
	names := make([]string, 0, len(drivers))
	for n := range drivers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// DriverName returns the driver a data source name is for: "postgres" for
// a postgres:// or postgresql:// URL, else "sqlite" (a file path).
func DriverName(dsn string) string {
	d := strings.ToLower(strings.TrimSpace(dsn))
	if strings.HasPrefix(d, "postgres://") || strings.HasPrefix(d, "postgresql://") {
		return "postgres"
	}
	return "sqlite"
}

// urlScheme matches a URL's scheme (two characters at least, so that a
// Windows drive letter is not one).
var urlScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]+)://`)

// Open opens the database dsn names, a SQLite file path (created with its
// folder when missing) or a PostgreSQL URL, applies the driver's migrations
// and returns it ready for use. Errors: EINVALID for an empty dsn or a URL
// of another scheme (mysql://, a misspelt postgres://);
// EUNAVAILABLE when the driver for dsn is not built into this program, when
// the database cannot be created or opened, is not a database of that kind,
// or has a schema newer than this build knows (upgrade lexsona).
func Open(ctx context.Context, dsn string) (*DB, error) {
	return OpenWith(ctx, dsn, Options{})
}

// OpenWith is Open with options. Its errors are Open's.
func OpenWith(ctx context.Context, dsn string, opts Options) (*DB, error) {
	if strings.TrimSpace(dsn) == "" {
		return nil, engine.Errorf(engine.EINVALID, "database path is empty")
	}
	name := DriverName(dsn)
	if m := urlScheme.FindStringSubmatch(strings.TrimSpace(dsn)); m != nil && name == "sqlite" {
		return nil, engine.Errorf(engine.EINVALID,
			"the database %s://… is not one LexSona stores in: give a SQLite file path or a postgres:// URL", m[1])
	}
	driversMu.RLock()
	open := drivers[name]
	driversMu.RUnlock()
	if open == nil {
		built := strings.Join(Drivers(), ", ")
		if built == "" {
			built = "none"
		}
		return nil, engine.Errorf(engine.EUNAVAILABLE, "the %s store driver is not built into this program (built in: %s)", name, built)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	opts.Clock = opts.Now()
	d, err := open(ctx, dsn, opts)
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
