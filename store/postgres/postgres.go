// Package postgres is the store driver for a PostgreSQL database
// (github.com/jackc/pgx/v5 and its pool). Importing it registers it with
// package store as "postgres", the driver store.Open uses for a postgres://
// or postgresql:// URL. Several LexSona instances may share one database;
// a named tenant's store is a schema of it with a role of its own
// (tenants.go).
//
// The tables live in the URL's schema (its search_path parameter, else
// public), so one database can hold several stores; a schema the URL names
// that does not exist yet is created. Migrations
// (migrations/postgres) run under a session advisory lock, so instances
// starting together apply each one once.
//
// Concurrency: every write transaction takes the store's write lock (a
// transaction advisory lock keyed by the schema) before its first
// statement, so writes of all instances run one after another, exactly as
// SQLite's single writer runs them: a correction's read-modify-write of α
// and β loses no update, an idempotency key written by one instance is seen
// (and replayed) by the next, the change counters that caches rely on grow
// in commit order. Within an instance, one writer goroutine commits queued
// writes in groups (write.go), so instances share the lock and the
// server's fsync between many writes. Reads run on the pool in parallel,
// on committed data, and never wait for the lock.
//
// Errors follow store.Driver's conventions: a server that cannot be
// reached, a timed-out statement and faults of the database (disk full,
// read-only server, damaged data) are EUNAVAILABLE naming the cause,
// context errors pass through, anything else is internal.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/groupcommit"
)

func init() {
	store.Register(store.Kind{
		Name: "postgres", Schemes: []string{"postgres", "postgresql"}, Describe: "a postgres:// URL", Tenants: &tenants{},
		Open: func(ctx context.Context, dsn string, opts store.Options) (store.Driver, error) {
			return Open(ctx, dsn, opts)
		},
	})
}

// Driver is an open PostgreSQL store. It is safe for concurrent use.
type Driver struct {
	pool     *pgxpool.Pool
	location string // the URL without its password
	schema   string // the schema holding the tables
	// writeKey and migrateKey are the advisory lock keys of the store's
	// write lock and of its migrations, derived from the schema.
	writeKey, migrateKey int64
	// eventSeq names the sequence of persona_events' ids, schema-qualified.
	eventSeq string
	// config caches the config overrides for write transactions.
	config configCache
	writer *groupcommit.Queue
	faults store.FaultState
	clock  func() time.Time // store.Options.Clock: times the probes and migrations
	// probeEvery is how often at most Writable tries whether a recorded
	// full disk or read-only server takes writes again (store.ProbeEvery).
	probeEvery time.Duration
	readOnly   bool
	log        *slog.Logger

	closeOnce sync.Once
	closeErr  error
}

// Settings given to every connection unless the URL sets them.
var defaultParams = map[string]string{
	"application_name": "lexsona",
	// A statement (or a wait for the write lock) that takes longer fails
	// with EUNAVAILABLE instead of hanging its caller.
	"statement_timeout": "60s",
}

// minConns is the least pool size (the URL's pool_max_conns can raise it).
const minConns = 8

// connectTimeout bounds a connection attempt (dial, TLS and start-up) when
// the URL sets no connect_timeout, so a server that accepts the connection
// but never answers fails the open instead of hanging it.
var connectTimeout = 10 * time.Second

// Open connects to the PostgreSQL database dsn names (a postgres:// URL;
// pool_max_conns and the other pgxpool parameters apply), applies the
// embedded migrations (migrations/postgres) and returns it ready for use. A
// server that only accepts reads (a standby) is opened read-only, without
// migrating. Errors: EINVALID for a malformed URL; EUNAVAILABLE when the
// server cannot be reached or refuses the login, when the URL names no
// schema and the connections have none, when the schema its search_path
// names does not exist and cannot be created (see ensureSchema), or when
// the schema is newer than this build knows (upgrade
// lexsona).
func Open(ctx context.Context, dsn string, opts store.Options) (*Driver, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "PostgreSQL URL %s: %v", redact(dsn), errors.Unwrap(err))
	}
	for k, v := range defaultParams {
		if _, set := cfg.ConnConfig.RuntimeParams[k]; !set {
			cfg.ConnConfig.RuntimeParams[k] = v
		}
	}
	if !strings.Contains(dsn, "pool_max_conns") {
		cfg.MaxConns = max(cfg.MaxConns, minConns)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	d := &Driver{location: redact(dsn), log: opts.Logger, probeEvery: store.ProbeEvery, clock: opts.Clock}
	d.faults.Clock = d.clock
	if d.log == nil {
		d.log = slog.Default()
	}
	if d.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, d.openErr("connect to", err)
	}
	if err := d.setup(ctx, cfg.ConnConfig.RuntimeParams["search_path"]); err != nil {
		d.pool.Close()
		return nil, err
	}
	d.writer = startWriter(d)
	return d, nil
}

// setup finds the schema (creating the one searchPath names when the
// connections have none) and whether the server takes writes, then
// migrates.
func (d *Driver) setup(ctx context.Context, searchPath string) error {
	var schema *string
	var recovery bool
	var readOnlySetting string
	err := d.pool.QueryRow(ctx, `SELECT current_schema(), pg_is_in_recovery(), current_setting('default_transaction_read_only')`).
		Scan(&schema, &recovery, &readOnlySetting)
	if err != nil {
		return d.openErr("connect to", err)
	}
	d.readOnly = recovery || readOnlySetting == "on"
	// The schema the URL names first, when the connections do not work in
	// it (it does not exist, so current_schema() fell through to the next
	// one on the path, or to none), is created: a team_a,public path must
	// never put team_a's tables into public.
	named := namedSchema(searchPath)
	switch {
	case named != "" && (schema == nil || *schema != named):
		if d.readOnly {
			return engine.Errorf(engine.EUNAVAILABLE, "PostgreSQL database %s: the schema %s the URL's search_path names does not exist (or this role may not use it), and the server only accepts reads", d.location, named)
		}
		if d.schema, err = d.ensureSchema(ctx, named); err != nil {
			return err
		}
	case schema != nil:
		d.schema = *schema
	default:
		return engine.Errorf(engine.EUNAVAILABLE,
			"PostgreSQL database %s has no schema for LexSona's tables: create one, or name it in the URL's search_path parameter and LexSona creates it", d.location)
	}
	d.writeKey, d.migrateKey = lockKey("write", d.schema), lockKey("migrate", d.schema)
	if d.readOnly {
		d.log.Warn("store: the PostgreSQL server only accepts reads: opened read-only", "database", d.location)
		return d.checkSchema(ctx)
	}
	if err := migrate(ctx, d); err != nil {
		return d.openErr("migrate", err)
	}
	if err := d.pool.QueryRow(ctx, `SELECT pg_get_serial_sequence('persona_events', 'event_id')`).Scan(&d.eventSeq); err != nil {
		return d.openErr("read the event id sequence of", err)
	}
	return nil
}

// lockKey is the advisory lock key of what in schema: advisory locks are
// per database, so stores in two schemas of one database do not share
// their locks.
func lockKey(what, schema string) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "lexsona %s %s", what, schema)
	return int64(h.Sum64())
}

// redact returns dsn without the password of its user, for messages and
// Location.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparsable URL)"
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.User(u.User.Username())
		}
	}
	q := u.Query()
	if q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// openErr is the EUNAVAILABLE error of a database that cannot be opened or
// migrated, naming it and the cause. An *engine.Error passes through.
func (d *Driver) openErr(op string, err error) error {
	var ee *engine.Error
	if errors.As(err, &ee) {
		return err
	}
	if k := kindOf(err); k != store.FaultNone {
		return store.NewFault(k, fmt.Sprintf("cannot %s PostgreSQL database %s: %s", op, d.location, faultMessages[k]), err)
	}
	return engine.Errorf(engine.EUNAVAILABLE, "cannot %s PostgreSQL database %s: %v", op, d.location, err)
}

// Location returns the database's URL without its password (a URL that
// store.Open opens again where the server needs none, or with PGPASSWORD or
// a ~/.pgpass entry).
func (d *Driver) Location() string { return d.location }

// ReadOnly reports whether the server only accepted reads at Open.
func (d *Driver) ReadOnly() bool { return d.readOnly }

// Close waits for the queued writes and closes the pool. Calling it again
// returns the first call's result.
func (d *Driver) Close() error {
	d.closeOnce.Do(func() {
		d.writer.Close()
		d.pool.Close()
	})
	return d.closeErr
}

var (
	_ store.Driver   = (*Driver)(nil)
	_ store.DriverTx = queries{}
)
