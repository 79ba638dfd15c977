package store

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/lexsona/lexsona/engine"
)

// Faults of the database file that no retry of the same request can cure:
// the disk is full, the file cannot be written, or its content is damaged.
// dbErr turns each into an EUNAVAILABLE error whose message names the cause
// (and that wraps a *faultError, so Fault finds it). The DB remembers the
// last fault a write met (noteFault) and Writable reports it, so readiness
// probes say the store cannot take writes: a full disk or a read-only file
// is forgotten at the next committed write (space was freed, the mount made
// writable again); damage is remembered until the process ends.

// FaultKind says which fault of the database file an error is.
type FaultKind int

// Kinds of fault. FaultNone is any other error (or none).
const (
	FaultNone FaultKind = iota
	FaultDiskFull
	FaultReadOnly
	FaultCorrupt
)

// faultMessages are the messages callers see, one per kind.
var faultMessages = map[FaultKind]string{
	FaultDiskFull: "the disk holding the database is full: free some space, then retry",
	FaultReadOnly: "the database is read-only (a file attribute, its permissions or a read-only mount): writes are refused",
	FaultCorrupt:  "the database file is damaged (SQLite reports corruption): restore it from a backup",
}

// faultError is the cause carried under the EUNAVAILABLE error of a fault.
type faultError struct {
	kind FaultKind
	err  error
}

func (e *faultError) Error() string { return e.err.Error() }
func (e *faultError) Unwrap() error { return e.err }

// kindOf classifies a driver or system error: SQLITE_FULL or ENOSPC is a
// full disk; SQLITE_READONLY or EROFS a read-only file;
// SQLITE_CORRUPT or SQLITE_NOTADB a damaged one.
func kindOf(err error) FaultKind {
	if err == nil {
		return FaultNone
	}
	var fe *faultError
	if errors.As(err, &fe) {
		return fe.kind
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_FULL:
			return FaultDiskFull
		case sqlite3.SQLITE_READONLY:
			return FaultReadOnly
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return FaultCorrupt
		}
	}
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return FaultDiskFull
	case errors.Is(err, syscall.EROFS):
		return FaultReadOnly
	}
	return FaultNone
}

// faultErr returns the EUNAVAILABLE error of a fault of kind k met while
// doing op (its text is logged, never shown), or nil when k is FaultNone.
func faultErr(k FaultKind, op string, err error) error {
	if k == FaultNone {
		return nil
	}
	return fmt.Errorf("%w: %w", engine.Errorf(engine.EUNAVAILABLE, "%s", faultMessages[k]),
		&faultError{kind: k, err: fmt.Errorf("store: %s: %w", op, err)})
}

// Fault returns the kind of database fault err reports (FaultNone for any
// other error and for nil).
func Fault(err error) FaultKind {
	var fe *faultError
	if errors.As(err, &fe) {
		return fe.kind
	}
	return FaultNone
}

// faultState is the fault the store's writes last met.
type faultState struct {
	last atomic.Pointer[error]
}

// note records err when it is a fault of the database file, and forgets a
// recorded full disk or read-only file when err is nil (a write committed).
func (s *faultState) note(err error) {
	if err == nil {
		if p := s.last.Load(); p != nil && Fault(*p) != FaultCorrupt {
			s.last.CompareAndSwap(p, nil)
		}
		return
	}
	if Fault(err) == FaultNone {
		return
	}
	if p := s.last.Load(); p != nil && Fault(*p) == FaultCorrupt {
		return // damage is not cured by anything later
	}
	s.last.Store(&err)
}

// get returns the recorded fault, or nil.
func (s *faultState) get() error {
	if p := s.last.Load(); p != nil {
		return *p
	}
	return nil
}

// NoteError records err when it reports a fault of the database file (a
// damaged page met by a read, say), so that Writable, and the readiness
// probes built on it, report it from then on. Front ends call it with the
// errors of the requests they answer; other errors are ignored.
func (db *DB) NoteError(err error) {
	if Fault(err) != FaultNone {
		db.faults.note(err)
	}
}

// LastFault returns the fault of the database file recorded last (see
// NoteError), or nil when there is none or a write has since committed.
func (db *DB) LastFault() error { return db.faults.get() }

// ReadOnly reports whether the database was opened read-only (its file
// cannot be written): reads work, every write fails with the read-only
// fault.
func (db *DB) ReadOnly() bool { return db.readOnly }

// readOnlyErr is what a write to a database opened read-only gets.
func (db *DB) readOnlyErr() error {
	return faultErr(FaultReadOnly, "write", fmt.Errorf("%s was opened read-only", db.path))
}

// checkWritable is Writable's test of the recorded fault.
func (db *DB) checkWritable(_ context.Context) error {
	if db.readOnly {
		return db.readOnlyErr()
	}
	return db.faults.get()
}
