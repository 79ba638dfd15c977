// Package sqlite is the store driver for one SQLite file (modernc.org/sqlite,
// pure Go). Importing it registers it with package store as "sqlite", the
// driver store.Open uses for a file path; a named tenant's store is the
// file tenants/<name>.db beside it (TenantPath).
//
// Concurrency: all writes go through one connection (SetMaxOpenConns(1)),
// committed in groups by one writer goroutine (write.go), and every write
// transaction starts with BEGIN IMMEDIATE, so writers of this process queue
// in Go instead of racing for SQLite's lock, and no update is lost. Reads
// use a separate pool of query_only connections; in WAL mode they never
// block the writer. busy_timeout covers other processes sharing the file.
//
// Errors follow store.Driver's conventions: SQLITE_BUSY past busy_timeout
// and faults of the file (full disk, read-only, damaged) are EUNAVAILABLE
// naming the cause, anything else is internal.
package sqlite

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
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/migrations"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/groupcommit"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

func init() {
	store.Register(store.Kind{
		Name: "sqlite", Describe: "a SQLite file path", Tenants: tenants{},
		Open: func(ctx context.Context, dsn string, opts store.Options) (store.Driver, error) {
			return Open(ctx, dsn, opts)
		},
	})
}

// busyTimeoutMS is how long a connection waits for another process's lock
// before SQLite gives up with SQLITE_BUSY.
const busyTimeoutMS = 10000

// Driver is an open SQLite database file. It is safe for concurrent use.
type Driver struct {
	path   string
	write  *sql.DB            // exactly one connection; transactions BEGIN IMMEDIATE
	read   *sql.DB            // query_only pool
	wstmt  *stmtSet           // the shared statements, prepared on write at its first use (stmts.go)
	rstmt  *stmtSet           // those that read, prepared on read at its first use
	ckpt   *checkpointer      // copies the write-ahead log into the file (checkpoint.go)
	writer *groupcommit.Queue // runs every write transaction, committing them in groups (write.go)
	faults store.FaultState   // the fault of the file writes last met
	clock  func() time.Time   // store.Options.Clock: times the probes, checkpoints and migrations
	errs   sqldriver.Errors   // errMap, with the faults only this file can tell (kind)
	// probeEvery is how often at most Writable tries whether a recorded
	// full disk or read-only file takes writes again (probe).
	probeEvery time.Duration
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
// returns; see write.go), takes the write lock at BEGIN
// (_txlock=immediate) and leaves checkpoints to the checkpointer
// (wal_autocheckpoint(0), journal_size_limit: see checkpoint.go); readers
// are query_only.
func dsn(path string, writer bool, synchronous string) string {
	q := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=synchronous(%s)&_pragma=temp_store(MEMORY)", busyTimeoutMS, synchronous)
	if writer {
		q += fmt.Sprintf("&_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)&_pragma=journal_size_limit(%d)&_txlock=immediate", walSizeLimit)
	} else {
		q += "&_pragma=query_only(1)&_pragma=cache_size(-16384)"
	}
	return fileURL(path) + "?" + q
}

// config is how a driver is opened; tests and benchmarks change it.
type config struct {
	ckpt       ckptConfig
	write      writeConfig
	probeEvery time.Duration // see Driver.probeEvery
}

var defaultConfig = config{ckpt: defaultCkpt, write: defaultWrite, probeEvery: store.ProbeEvery}

// Open opens (creating it and its parent directory if needed) the database
// file at path, applies the embedded migrations (migrations.SQLite) and
// returns it ready for use, with a background checkpointer (see
// checkpoint.go) that Close stops. A file that cannot be written is opened
// read-only (readonly.go). Errors: EINVALID for an empty path; EUNAVAILABLE
// when the directory or file cannot be created or opened, when the file is
// not a SQLite database, or when its schema is newer than this build knows
// (upgrade lexsona).
func Open(ctx context.Context, path string, opts store.Options) (*Driver, error) {
	return open(ctx, path, opts, defaultConfig)
}

func open(ctx context.Context, path string, opts store.Options, cfg config) (*Driver, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
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
	d := &Driver{path: abs, probeEvery: cfg.probeEvery, clock: opts.Clock}
	d.faults.Clock = d.clock
	d.errs = sqldriver.Errors{Kind: d.kind, Transient: errMap.Transient}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	n := max(4, runtime.GOMAXPROCS(0))
	if opts.ReadOnly {
		if err := d.openForReading(ctx, n); err != nil {
			return nil, err
		}
		d.prepare()
		d.writer = startWriter(d, cfg.write.maxGroup)
		return d, nil
	}
	if cannotWrite(abs) {
		if err := d.openReadOnly(ctx, n); err != nil {
			return nil, err
		}
		d.prepare()
		log.Warn("store: the database file cannot be written: opened read-only", "path", abs)
		d.writer = startWriter(d, cfg.write.maxGroup)
		return d, nil
	}
	if d.write, err = openPool(ctx, abs, dsn(abs, true, cfg.write.synchronous), 1); err != nil {
		return nil, err
	}
	if err := migrate(ctx, d.write, migrations.SQLite, d.clock()); err != nil {
		d.write.Close()
		return nil, openErr(abs, "migrate", err)
	}
	if k, err := cleanOrphans(ctx, d.write); err != nil {
		log.Warn("store: deleting orphaned embeddings failed", "err", err.Error())
	} else if k > 0 {
		log.Info("store: deleted orphaned embeddings", "rows", k)
	}
	if d.read, err = openPool(ctx, abs, dsn(abs, false, cfg.write.synchronous), n); err != nil {
		d.write.Close()
		return nil, err
	}
	d.prepare()
	if d.ckpt, err = startCheckpointer(ctx, abs, d.write, log, cfg.ckpt, d.clock); err != nil {
		d.read.Close()
		d.write.Close()
		return nil, err
	}
	d.ckpt.notify() // the migrations may have written
	d.writer = startWriter(d, cfg.write.maxGroup)
	return d, nil
}

// openPool opens a pool of conns connections to dsn and checks that the
// file is a SQLite database. Its errors are openErr's.
func openPool(ctx context.Context, path, dsn string, conns int) (*sql.DB, error) {
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
// file (full disk, read-only, damaged), else the driver's message. An
// *engine.Error passes through.
func openErr(path, op string, err error) error {
	k := kindOf(err)
	var ee *engine.Error
	if errors.As(err, &ee) && k == store.FaultNone {
		return err
	}
	if k != store.FaultNone {
		return store.NewFault(k, fmt.Sprintf("cannot %s database %s: %s", op, path, store.FaultMessage(k)), err)
	}
	return engine.Errorf(engine.EUNAVAILABLE, "cannot %s database %s: %v", op, path, err)
}

// prepare gives both pools their statement sets (stmts.go): the shared
// statements on write, those that read on read, each set prepared at its
// pool's first use.
func (d *Driver) prepare() {
	all := stmts.All()
	d.wstmt, d.rstmt = newStmtSet(d.write, all), newStmtSet(d.read, reads(all))
}

// Location returns the absolute path of the database file.
func (d *Driver) Location() string { return d.path }

// Close waits for the queued writes, stops the background checkpointer,
// checkpoints the write-ahead log into the database file (PRAGMA
// wal_checkpoint(TRUNCATE)) and closes both pools. Calling it again returns
// the first call's result. Its error is internal.
func (d *Driver) Close() error {
	d.closeOnce.Do(func() {
		d.writer.Close()
		var ckptErr error
		if d.ckpt != nil {
			ckptErr = d.ckpt.close()
		}
		d.rstmt.close()
		d.wstmt.close()
		errs := []error{ckptErr, d.read.Close()}
		// Another process's reader can make a TRUNCATE checkpoint wait: give
		// it one second, not the full busy timeout, so shutdown stays prompt.
		// A checkpoint that cannot finish is completed by the next one.
		if !d.readOnly {
			_, _ = d.write.Exec("PRAGMA busy_timeout = 1000")
			if _, err := d.write.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
				errs = append(errs, fmt.Errorf("store: checkpoint: %w", err))
			}
		}
		errs = append(errs, d.write.Close())
		d.closeErr = errors.Join(errs...)
	})
	return d.closeErr
}

// errMap maps the driver's errors: SQLITE_BUSY (another process held the
// lock past busy_timeout) is EUNAVAILABLE; so is a fault of the file (a
// full disk, a read-only or damaged file, see kindOf) with a message
// naming it.
var errMap = sqldriver.Errors{Kind: kindOf, Transient: func(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY {
		return engine.Errorf(engine.EUNAVAILABLE, "the database is locked by another process: try again")
	}
	return nil
}}

// dbErr turns an unexpected database error into what callers see
// (sqldriver.Errors.Map): an *engine.Error passes through, a context error
// is wrapped, a fault or a busy database is EUNAVAILABLE, anything else is
// internal; nil stays nil.
func dbErr(op string, err error) error { return errMap.Map(op, err) }

// dbErr is the package's dbErr, but for an I/O error met while the file
// cannot be written, which is the read-only fault (see Driver.kind): the
// mapping of the statements of reads and writes.
func (d *Driver) dbErr(op string, err error) error { return d.errs.Map(op, err) }

var (
	_ store.Driver   = (*Driver)(nil)
	_ store.DriverTx = queries{}
)
