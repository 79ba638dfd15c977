// Package store keeps LexSona's state: rules and their append-only events,
// rule texts and their embeddings, config overrides, pending confirmations,
// idempotency keys and the registries in force. It holds rows and
// transactions: it checks what a row may hold (a rule's fields, a text's
// kind and size, an event's type and score), runs write transactions and
// keeps caches keyed by a version. It decides nothing of the domain:
// evidence, promotion, exceptions, snapshots, edits, merges and registry
// syncs are package memory's, over engine's rules. The rows themselves are
// a Driver's, one per database: store/sqlite (a file, the default) and
// store/postgres (a PostgreSQL database several instances share) are
// registered by importing them; Open picks the driver from the data source
// name.
//
// Errors are *engine.Error values with an engine code where the caller can act
// on them (EINVALID, ENOTFOUND, ECONFLICT, EUNAVAILABLE, ETOOLARGE); anything
// else is an internal error wrapped with %w.
package store

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// DB is an open LexSona store. It is safe for concurrent use.
type DB struct {
	drv   Driver
	clock func() time.Time // the caller's (Options.Clock), for the version cache
	cache rulesCache
	// writes counts this process's finished write transactions; embVer
	// caches the embeddings version with the writes count and time it was
	// read at (see EmbeddingsVersionWithin).
	writes atomic.Uint64
	embVer atomic.Pointer[versionAt]
}

// Tx is one write transaction, handed to the function given to DB.Write,
// with the time its writes are stamped with. Its methods must not be used
// after that function returns. Errors follow the
// package conventions: *engine.Error for what the caller can act on, wrapped
// internal errors otherwise; any error should make the function return it, so
// that the transaction rolls back.
type Tx struct {
	dt DriverTx
	db *DB
	at time.Time
}

// Write runs fn as one atomic unit of writes at the caller's time at (the
// time stamped on the rows it writes: a rule's update time, a text's, a
// vector's, a config override's, an idempotency key's, an event or a
// confirmation given none) and returns once they are
// durably committed; when fn returns an error or panics, everything it wrote
// is rolled back and the error is returned as is (a panic is raised again in
// the caller). The driver may run fn in one transaction with other callers'
// functions (SQLite: group commit on its single write connection), so fn
// sees the writes of those committed with it. fn must not call DB methods
// that write (they would wait for the write fn runs in); reading through DB
// methods is fine but sees only committed data. Errors from the store
// itself: EUNAVAILABLE when the database is locked by another process, read
// only, full or damaged; context errors (when ctx ends before fn started);
// internal errors (a failed commit: nothing was written; a closed database;
// a zero at, which names no time).
func (db *DB) Write(ctx context.Context, at time.Time, fn func(tx *Tx) error) error {
	if at.IsZero() {
		return errors.New("store: a write needs the time it happens at")
	}
	at = at.UTC()
	defer db.writes.Add(1) // after the commit: a reader racing it re-checks, never keeps a stale version
	return db.drv.Write(ctx, func(dt DriverTx) error { return fn(&Tx{dt: dt, db: db, at: at}) })
}

// At is the time of the transaction's writes (DB.Write's at), in UTC.
func (t *Tx) At() time.Time { return t.at }

// reader returns the driver's reader outside any transaction.
func (db *DB) reader(ctx context.Context) Reader { return db.drv.Reader(ctx) }

// Path returns where the database is: the absolute path of a SQLite file,
// or a PostgreSQL URL without its password.
func (db *DB) Path() string { return db.drv.Location() }

// Close waits for the queued writes and closes the database. Calling it
// again returns the first call's result. Its error is internal.
func (db *DB) Close() error { return db.drv.Close() }

// Writable reports whether writes can commit, for readiness probes: not
// when the database was opened read-only, nor while the last write met a
// fault (full disk, read-only, damaged: the error names it, see Fault), nor
// when the write lock cannot be taken now. Its error is EUNAVAILABLE.
func (db *DB) Writable(ctx context.Context) error { return db.drv.Writable(ctx) }

// ReadOnly reports whether the database was opened read-only (its file
// cannot be written): reads work, every write fails with the read-only
// fault.
func (db *DB) ReadOnly() bool { return db.drv.ReadOnly() }

// NoteError records err when it reports a fault of the database (a damaged
// page met by a read, say), so that Writable, and the readiness probes built
// on it, report it from then on. Front ends call it with the errors of the
// requests they answer; other errors are ignored.
func (db *DB) NoteError(err error) {
	if Fault(err) != FaultNone {
		db.drv.NoteError(err)
	}
}

// LastFault returns the fault of the database recorded last (see
// NoteError), or nil when there is none or a write has since committed.
func (db *DB) LastFault() error { return db.drv.LastFault() }

// DefaultIntegrityTimeout bounds QuickCheck when the caller gives no time.
const DefaultIntegrityTimeout = 30 * time.Second

// QuickCheck checks the structure of the database (SQLite: PRAGMA
// quick_check) for at most limit (<= 0: DefaultIntegrityTimeout). It returns
// finished false, and no error, when the time ran out first. Errors:
// EUNAVAILABLE saying the database is damaged and quoting the first findings
// (it carries the damaged-file fault: see Fault); internal errors when the
// check could not run.
func (db *DB) QuickCheck(ctx context.Context, limit time.Duration) (finished bool, err error) {
	if limit <= 0 {
		limit = DefaultIntegrityTimeout
	}
	return db.drv.QuickCheck(ctx, limit)
}

// SchemaVersion returns the newest migration applied to the database. Its
// errors are internal.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) { return db.drv.SchemaVersion(ctx) }

// LatestSchemaVersion returns the newest schema version the database's
// driver knows.
func (db *DB) LatestSchemaVersion() int { return db.drv.LatestSchemaVersion() }

// Migrations lists the applied migrations, oldest first. Its errors are
// internal.
func (db *DB) Migrations(ctx context.Context) ([]Migration, error) { return db.drv.Migrations(ctx) }

// Stats counts the stored rows of each kind. Its errors are internal.
func (db *DB) Stats(ctx context.Context) (Stats, error) { return db.reader(ctx).Stats() }

// notFound is the ENOTFOUND error of an unknown rule.
func notFound(id string) error { return engine.Errorf(engine.ENOTFOUND, "rule %q not found", id) }

// orAt returns at in UTC, or the transaction's time when at is zero.
func (t *Tx) orAt(at time.Time) time.Time {
	if at.IsZero() {
		return t.at
	}
	return at.UTC()
}
