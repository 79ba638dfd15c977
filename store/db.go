// Package store keeps LexSona's state in one SQLite file (modernc.org/sqlite,
// pure Go): rules and their append-only events, rule texts and their
// embeddings, config overrides, pending confirmations and idempotency keys.
//
// Concurrency: all writes go through one connection (SetMaxOpenConns(1)) and
// every write transaction starts with BEGIN IMMEDIATE, so writers of this
// process queue in Go instead of racing for SQLite's lock, and no update is
// lost. Reads use a separate pool of query_only connections; in WAL mode they
// never block the writer. busy_timeout covers other processes sharing the file.
//
// Errors are *engine.Error values with an engine code where the caller can act
// on them (EINVALID, ENOTFOUND, ECONFLICT, EUNAVAILABLE, ETOOLARGE); anything
// else is an internal error wrapped with %w.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/migrations"
)

// busyTimeoutMS is how long a connection waits for another process's lock
// before SQLite gives up with SQLITE_BUSY.
const busyTimeoutMS = 10000

// DB is an open LexSona database. It is safe for concurrent use.
type DB struct {
	path  string
	write *sql.DB // exactly one connection; transactions BEGIN IMMEDIATE
	read  *sql.DB // query_only pool
	wstmt map[string]*sql.Stmt
	rstmt map[string]*sql.Stmt
	cache rulesCache
	// writes counts this process's committed write transactions; embVer
	// caches the embeddings version with the writes count and time it was
	// read at (see EmbeddingsVersionWithin).
	writes atomic.Uint64
	embVer atomic.Pointer[versionAt]
	ckpt   *checkpointer // copies the write-ahead log into the file (checkpoint.go)
	writer *writer       // runs every write transaction, committing them in groups (db_write.go)
	faults faultState    // the fault of the file writes last met (faults.go)
	// readOnly: the file cannot be written, so it was opened read-only
	// (readonly.go); every write fails with the read-only fault.
	readOnly bool

	closeOnce sync.Once
	closeErr  error
}

// fileURL returns the file: URL of path for the driver.
func fileURL(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path // Windows drive paths: file:///C:/...
	}
	return u.String()
}

// dsn returns the modernc.org/sqlite data source name for path. The pragmas
// ride in the DSN so that every pooled connection gets them; the driver runs
// busy_timeout first. The writer sets WAL (persistent in the file), commits
// with the given synchronous mode (FULL: a commit is on disk when it
// returns; see db_write.go), takes the write lock at BEGIN
// (_txlock=immediate) and leaves checkpoints to the checkpointer
// (wal_autocheckpoint(0), journal_size_limit: see checkpoint.go); readers
// are query_only.
func dsn(path string, writer bool) string { return dsnSync(path, writer, defaultWrite.synchronous) }

// dsnSync is dsn with the synchronous mode given.
func dsnSync(path string, writer bool, synchronous string) string {
	q := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=synchronous(%s)&_pragma=temp_store(MEMORY)", busyTimeoutMS, synchronous)
	if writer {
		q += fmt.Sprintf("&_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)&_pragma=journal_size_limit(%d)&_txlock=immediate", walSizeLimit)
	} else {
		q += "&_pragma=query_only(1)&_pragma=cache_size(-16384)"
	}
	return fileURL(path) + "?" + q
}

// Options configure OpenWith; the zero value is Open's defaults.
type Options struct {
	// Logger gets what no caller can be told: a failed background checkpoint
	// (slog.Default()).
	Logger *slog.Logger
}

// Open opens (creating it and its parent directory if needed) the database at
// path, applies the embedded migrations and returns it ready for use, with a
// background checkpointer (see checkpoint.go) that Close stops. Errors:
// EINVALID for an empty path; EUNAVAILABLE when the directory or file cannot
// be created or opened, when the file is not a SQLite database, or when its
// schema is newer than this build knows (upgrade lexsona).
func Open(ctx context.Context, path string) (*DB, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith is Open with options. Its errors are Open's.
func OpenWith(ctx context.Context, path string, opts Options) (*DB, error) {
	return open(ctx, path, opts, defaultCkpt)
}

// open is OpenWith with the checkpointer's configuration, which tests
// shorten.
func open(ctx context.Context, path string, opts Options, ckpt ckptConfig) (*DB, error) {
	return openConfig(ctx, path, opts, ckpt, defaultWrite)
}

// openConfig is open with the write connection's configuration, which
// benchmarks change.
func openConfig(ctx context.Context, path string, opts Options, ckpt ckptConfig, wcfg writeConfig) (*DB, error) {
	if strings.TrimSpace(path) == "" {
		return nil, engine.Errorf(engine.EINVALID, "database path is empty")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "database path %q: %v", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "cannot create the database directory %s: %v", filepath.Dir(abs), err)
	}
	if err := createPrivate(abs); err != nil {
		return nil, err
	}
	db := &DB{path: abs}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	n := max(4, runtime.GOMAXPROCS(0))
	if cannotWrite(abs) {
		if err := db.openReadOnly(ctx, n); err != nil {
			return nil, err
		}
		if err := db.prepare(ctx); err != nil {
			db.read.Close()
			db.write.Close()
			return nil, err
		}
		log.Warn("store: the database file cannot be written: opened read-only", "path", abs)
		db.writer = startWriter(db, wcfg.maxGroup)
		return db, nil
	}
	if db.write, err = openPool(ctx, abs, true, 1, wcfg.synchronous); err != nil {
		return nil, err
	}
	if err := migrate(ctx, db.write, migrations.FS); err != nil {
		db.write.Close()
		return nil, openErr(abs, "migrate", err)
	}
	if k, err := cleanOrphans(ctx, db.write); err != nil {
		log.Warn("store: deleting orphaned embeddings failed", "err", err.Error())
	} else if k > 0 {
		log.Info("store: deleted orphaned embeddings", "rows", k)
	}
	if db.read, err = openPool(ctx, abs, false, n, wcfg.synchronous); err != nil {
		db.write.Close()
		return nil, err
	}
	if err := db.prepare(ctx); err != nil {
		db.read.Close()
		db.write.Close()
		return nil, err
	}
	if db.ckpt, err = startCheckpointer(ctx, abs, db.write, log, ckpt); err != nil {
		db.read.Close()
		db.write.Close()
		return nil, err
	}
	db.ckpt.notify() // the migrations may have written
	db.writer = startWriter(db, wcfg.maxGroup)
	return db, nil
}

func openPool(ctx context.Context, path string, writer bool, conns int, synchronous string) (*sql.DB, error) {
	return openPoolDSN(ctx, path, dsnSync(path, writer, synchronous), conns)
}

func openPoolDSN(ctx context.Context, path, dsn string, conns int) (*sql.DB, error) {
	p, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, openErr(path, "open", err)
	}
	p.SetMaxOpenConns(conns)
	p.SetMaxIdleConns(conns)
	p.SetConnMaxLifetime(0)
	p.SetConnMaxIdleTime(0)
	// A query, not just a ping: it makes SQLite read the header, so a file
	// that is not a database fails here.
	var n int
	if err := p.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
		p.Close()
		return nil, openErr(path, "open", err)
	}
	return p, nil
}

// openErr is the EUNAVAILABLE error of a database that cannot be opened (or
// migrated): it names the file and the cause, in words for a fault of the
// file (full disk, read-only, damaged; see faults.go), else the driver's
// message. An *engine.Error passes through.
func openErr(path, op string, err error) error {
	k := kindOf(err)
	var ee *engine.Error
	if errors.As(err, &ee) && k == FaultNone {
		return err
	}
	if k != FaultNone {
		return fmt.Errorf("%w: %w", engine.Errorf(engine.EUNAVAILABLE, "cannot %s database %s: %s", op, path, faultMessages[k]),
			&faultError{kind: k, err: err})
	}
	return engine.Errorf(engine.EUNAVAILABLE, "cannot %s database %s: %v", op, path, err)
}

// prepare prepares every statement registered with sqlq on both pools.
func (db *DB) prepare(ctx context.Context) error {
	db.wstmt = make(map[string]*sql.Stmt, len(queries))
	db.rstmt = make(map[string]*sql.Stmt, len(queries))
	for _, q := range queries {
		w, err := db.write.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("store: prepare %q: %w", q, err)
		}
		r, err := db.read.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("store: prepare %q: %w", q, err)
		}
		db.wstmt[q], db.rstmt[q] = w, r
	}
	return nil
}

// Path returns the absolute path of the database file.
func (db *DB) Path() string { return db.path }

// Close waits for the queued writes, stops the background checkpointer, checkpoints the write-ahead log
// into the database file (PRAGMA wal_checkpoint(TRUNCATE)) and closes both
// pools. Calling it again returns the first call's result. Its error is
// internal.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		db.writer.close()
		var ckptErr error
		if db.ckpt != nil {
			ckptErr = db.ckpt.close()
		}
		for _, m := range []map[string]*sql.Stmt{db.rstmt, db.wstmt} {
			for _, s := range m {
				s.Close()
			}
		}
		errs := []error{ckptErr, db.read.Close()}
		// Another process's reader can make a TRUNCATE checkpoint wait: give
		// it one second, not the full busy timeout, so shutdown stays prompt.
		// A checkpoint that cannot finish is completed by the next one.
		if !db.readOnly {
			_, _ = db.write.Exec("PRAGMA busy_timeout = 1000")
			if _, err := db.write.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
				errs = append(errs, fmt.Errorf("store: checkpoint: %w", err))
			}
		}
		errs = append(errs, db.write.Close())
		db.closeErr = errors.Join(errs...)
	})
	return db.closeErr
}

// Writable reports whether writes can commit, for readiness probes: not
// when the database was opened read-only, nor while the last write met a
// fault of the file (full disk, read-only, damaged: the error names it, see
// faults.go), nor when the write lock cannot be taken now (BEGIN IMMEDIATE;
// ROLLBACK). Its error is EUNAVAILABLE.
func (db *DB) Writable(ctx context.Context) error {
	if err := db.checkWritable(ctx); err != nil {
		return err
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "database %s is not writable: %v", db.path, err)
	}
	return dbErr("release the write lock", tx.Rollback())
}

// Write runs fn as one atomic unit of writes on the single write connection
// and returns once they are durably committed (synchronous=FULL); when fn
// returns an error or panics, everything it wrote is rolled back and the
// error is returned as is (a panic is raised again in the caller). fn runs on
// the store's writer goroutine, possibly in one SQLite transaction with other
// callers' functions, each in a savepoint (group commit: see db_write.go), so
// it sees the writes of those committed with it. fn must not call DB methods
// that write (they would wait for the writer fn runs on); reading through DB
// methods is fine but sees only committed data. Errors from the store
// itself: EUNAVAILABLE when another process holds the lock past
// busy_timeout, context errors (when ctx ends before fn started), internal
// errors (a failed commit: nothing was written; a closed database).
func (db *DB) Write(ctx context.Context, fn func(tx *Tx) error) error {
	return db.writer.submit(ctx, fn)
}

// readTx runs fn in one read transaction on the read pool, so that all its
// queries see the same committed state. Its BEGIN (deferred: it waits for no
// lock) runs without ctx's cancellation, like every statement (see
// runner.sctx); a done ctx fails it at once.
func (db *DB) readTx(ctx context.Context, fn func(r runner) error) error {
	if err := ctx.Err(); err != nil {
		return dbErr("begin a read transaction", err)
	}
	sqlTx, err := db.read.BeginTx(context.WithoutCancel(ctx), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return dbErr("begin a read transaction", err)
	}
	defer sqlTx.Rollback()
	return fn(runner{ctx: ctx, tx: sqlTx, stmts: db.rstmt})
}

// reader returns a runner on the read pool, outside any transaction.
func (db *DB) reader(ctx context.Context) runner {
	return runner{ctx: ctx, pool: db.read, stmts: db.rstmt}
}

// dbErr turns an unexpected database error into what callers see: an
// *engine.Error passes through, SQLITE_BUSY (another process held the lock
// past busy_timeout) becomes EUNAVAILABLE, so does a fault of the file (a
// full disk, a read-only or damaged file: see faults.go) with a message
// naming it, anything else is wrapped as internal; nil stays nil.
func dbErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *engine.Error
	if errors.As(err, &e) {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY {
		return engine.Errorf(engine.EUNAVAILABLE, "the database is locked by another process: try again")
	}
	if k := kindOf(err); k != FaultNone {
		return faultErr(k, op, err)
	}
	return fmt.Errorf("store: %s: %w", op, err)
}
