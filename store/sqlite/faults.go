package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
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

// kind is kindOf, and the read-only fault for an I/O error (SQLITE_IOERR)
// met while the file system refuses writes (writeRefused): SQLite reports
// a write that the system refused with EROFS, as a file system turned
// read-only after an error (ext4's errors=remount-ro) refuses it, as
// SQLITE_IOERR_WRITE, without the system's error.
func (d *Driver) kind(err error) store.FaultKind {
	k := kindOf(err)
	var se *sqlite.Error
	if k == store.FaultNone && errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_IOERR && writeRefused(d.path) {
		return store.FaultReadOnly
	}
	return k
}

// writeRefused reports whether the file system refuses writes to the file
// at path now: readOnlyNow, or a file cannot be created beside it for
// EROFS. ext4 turned read-only by an error keeps its mount read-write (it
// shows as emergency_ro), which access(2) does not see; creating a file
// does. It writes, so it is for explaining an I/O error, not for polling.
func writeRefused(path string) bool {
	if readOnlyNow(path) {
		return true
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".lexsona-write-check-*")
	if err != nil {
		return errors.Is(err, syscall.EROFS)
	}
	f.Close()
	os.Remove(f.Name())
	return false
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
// read-only or its file system is read-only now (readOnlyNow), nor while
// the last write met a fault of the file, nor when the write lock cannot be
// taken now (BEGIN IMMEDIATE; ROLLBACK). A full disk or a read-only file is
// probed at most every probeEvery (probe), so that readiness returns once
// writes can commit again without a write having to try first. Its error
// is EUNAVAILABLE.
func (d *Driver) Writable(ctx context.Context) error {
	if d.readOnly {
		return d.readOnlyErr()
	}
	if readOnlyNow(d.path) {
		d.faults.Note(faultErr(store.FaultReadOnly, "check the database file", fmt.Errorf("%s can no longer be written", d.path)))
	}
	if err := d.faults.Probe(d.probeEvery, func() { d.probe(ctx) }); err != nil {
		return err
	}
	tx, err := d.write.BeginTx(ctx, nil)
	if err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "database %s is not writable: %v", d.path, err)
	}
	return dbErr("release the write lock", tx.Rollback())
}

// minFreeSpace is the free space a full disk must have again before a probe
// writes: room for the write-ahead log to take a few hundred writes.
const minFreeSpace = 1 << 20

// probe tries whether a write commits again after the fault recorded: once
// the disk has minFreeSpace free (when that can be read) or the file can be
// written again, it writes one small row (sqldriver.ProbeWrite) through the
// write queue, which records the outcome (a commit clears the fault).
func (d *Driver) probe(ctx context.Context) {
	switch store.Fault(d.faults.Get()) {
	case store.FaultDiskFull:
		if free, ok := freeSpace(filepath.Dir(d.path)); ok && free < minFreeSpace {
			return
		}
	case store.FaultReadOnly:
		if readOnlyNow(d.path) {
			return
		}
	}
	_ = sqldriver.ProbeWrite(ctx, d.clock(), d.Write)
}
