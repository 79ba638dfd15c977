package postgres

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// SQLSTATE codes the driver acts on.
const (
	codeDiskFull       = "53100" // disk_full
	codeReadOnlyTx     = "25006" // read_only_sql_transaction (a standby, default_transaction_read_only)
	codeDataCorrupted  = "XX001" // data_corrupted (a page checksum failed…)
	codeIndexCorrupted = "XX002" // index_corrupted
	codeQueryCanceled  = "57014" // query_canceled: statement_timeout or lock_timeout
	codeLockNotAvail   = "55P03" // lock_not_available
	codeSerialization  = "40001" // serialization_failure
	codeDeadlock       = "40P01" // deadlock_detected
	codeAdminShutdown  = "57P01" // admin_shutdown
	codeCrashShutdown  = "57P02" // crash_shutdown
	codeCannotConnect  = "57P03" // cannot_connect_now (starting up, shutting down)
	codeTooManyConns   = "53300" // too_many_connections
)

// Fault messages in PostgreSQL's terms (store.FaultMessage speaks of files).
var faultMessages = map[store.FaultKind]string{
	store.FaultDiskFull: "the disk holding the PostgreSQL database is full: free some space on the server, then retry",
	store.FaultReadOnly: "the PostgreSQL server only accepts reads (a standby, or default_transaction_read_only): writes are refused",
	store.FaultCorrupt:  "the PostgreSQL server reports damaged data: restore the database from a backup",
}

// pgCode returns err's SQLSTATE, "" when it is not an error of the server.
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// kindOf classifies err as a fault of the database: disk_full, a server
// that only accepts reads, damaged data. An error that already carries a
// fault keeps its kind.
func kindOf(err error) store.FaultKind {
	if err == nil {
		return store.FaultNone
	}
	if k := store.Fault(err); k != store.FaultNone {
		return k
	}
	switch pgCode(err) {
	case codeDiskFull:
		return store.FaultDiskFull
	case codeReadOnlyTx:
		return store.FaultReadOnly
	case codeDataCorrupted, codeIndexCorrupted:
		return store.FaultCorrupt
	}
	return store.FaultNone
}

// faultErr returns the EUNAVAILABLE error of a fault of kind k met while
// doing op (err is logged, never shown).
func faultErr(k store.FaultKind, op string, err error) error { return errMap.Fault(k, op, err) }

// unreachable reports whether err says the server cannot be reached or
// went away: a failed connection, a network error, a server shutting down
// or refusing connections.
func unreachable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne), pgconn.SafeToRetry(err):
		return true
	}
	switch c := pgCode(err); {
	case c == codeAdminShutdown, c == codeCrashShutdown, c == codeCannotConnect, c == codeTooManyConns, strings.HasPrefix(c, "08"):
		return true
	}
	return strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "unexpected EOF")
}

// errMap maps the driver's errors: a fault of the database (kindOf) is
// EUNAVAILABLE naming it in PostgreSQL's terms; so are, saying to retry, a
// statement or lock wait that timed out, a serialization failure or
// deadlock, and a server that cannot be reached (store.ErrUnreachable).
var errMap = sqldriver.Errors{Kind: kindOf, Messages: faultMessages, Transient: transient}

func transient(err error) error {
	switch c := pgCode(err); {
	case c == codeQueryCanceled, c == codeLockNotAvail:
		return fmt.Errorf("%w: %w", engine.Errorf(engine.EUNAVAILABLE, "the PostgreSQL database is busy (a statement or lock wait timed out): try again"), err)
	case c == codeSerialization, c == codeDeadlock:
		return fmt.Errorf("%w: %w", engine.Errorf(engine.EUNAVAILABLE, "a concurrent write got in the way: try again"), err)
	}
	if unreachable(err) {
		return fmt.Errorf("%w: %w: %w", engine.Errorf(engine.EUNAVAILABLE, "the PostgreSQL server cannot be reached: try again"), store.ErrUnreachable, err)
	}
	return nil
}

// dbErr turns an unexpected database error into what callers see
// (sqldriver.Errors.Map): nil stays nil; an *engine.Error passes through;
// a context error is wrapped (errors.Is finds context.Canceled); a fault
// or a transient error is EUNAVAILABLE; anything else is internal.
func dbErr(op string, err error) error { return errMap.Map(op, err) }
