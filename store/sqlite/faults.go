package sqlite

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// kindOf classifies a driver or system error: SQLITE_FULL or ENOSPC is a
// full disk; SQLITE_READONLY or EROFS a read-only file; SQLITE_CORRUPT or
// SQLITE_NOTADB a damaged one. An error that already carries a fault keeps
// its kind.
func kindOf(err error) store.FaultKind {
	if err == nil {
		return store.FaultNone
	}
	if k := store.Fault(err); k != store.FaultNone {
		return k
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_FULL:
			return store.FaultDiskFull
		case sqlite3.SQLITE_READONLY:
			return store.FaultReadOnly
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return store.FaultCorrupt
		}
	}
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return store.FaultDiskFull
	case errors.Is(err, syscall.EROFS):
		return store.FaultReadOnly
	}
	return store.FaultNone
}

// faultErr returns the EUNAVAILABLE error of a fault of kind k met while
// doing op (its text is logged, never shown), or nil when k is FaultNone.
func faultErr(k store.FaultKind, op string, err error) error { return errMap.Fault(k, op, err) }

// NoteError records err when it reports a fault of the database file.
func (d *Driver) NoteError(err error) { d.faults.Note(err) }

// LastFault returns the fault recorded last (see store.FaultState).
func (d *Driver) LastFault() error { return d.faults.Get() }

// ReadOnly reports whether the file was opened read-only.
func (d *Driver) ReadOnly() bool { return d.readOnly }

// readOnlyErr is what a write to a database opened read-only gets.
func (d *Driver) readOnlyErr() error {
	return faultErr(store.FaultReadOnly, "write", fmt.Errorf("%s was opened read-only", d.path))
}

// Writable reports whether writes can commit: not when the file was opened
// read-only, nor while the last write met a fault of the file, nor when the
// write lock cannot be taken now (BEGIN IMMEDIATE; ROLLBACK). Its error is
// EUNAVAILABLE.
func (d *Driver) Writable(ctx context.Context) error {
	if d.readOnly {
		return d.readOnlyErr()
	}
	if err := d.faults.Get(); err != nil {
		return err
	}
	tx, err := d.write.BeginTx(ctx, nil)
	if err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "database %s is not writable: %v", d.path, err)
	}
	return dbErr("release the write lock", tx.Rollback())
}
