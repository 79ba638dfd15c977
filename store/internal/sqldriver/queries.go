package sqldriver

import (
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Conn is how a driver runs the shared statements (Queries) on its
// connection, a pool or a transaction: what differs between the databases'
// client libraries. Every error it returns is mapped (Err) but those of a
// Scanner's Scan, which the caller maps.
type Conn[C any] interface {
	// Query runs q and calls fn for each row; op names it in errors.
	Query(op, q string, args []any, fn func(Scanner) error) error
	// QueryRow runs q, which returns at most one row; the Scan of what it
	// returns reports a missing row with an error NoRows recognises, and
	// any error of running q.
	QueryRow(q string, args ...any) Scanner
	// NoRows reports whether err says QueryRow's query returned no row.
	NoRows(err error) bool
	// Exec runs q and returns how many rows it changed.
	Exec(op, q string, args ...any) (int64, error)
	// Later runs q, a write whose only outcome is its error; a driver may
	// send it with its next statement, which then returns its error.
	Later(op, q string, args ...any) error
	// InsertID runs q, an insert of one row (ending with RETURNING its id
	// column where the Dialect says so), and returns the new row's id.
	InsertID(op, q string, args ...any) (int64, error)
	// ScanBlob scans a row into dest, whose last column is binary: it sets
	// dest's last element itself and returns that column's bytes without
	// copying them (valid until the next row).
	ScanBlob(sc Scanner, dest []any) ([]byte, error)
	// Consistent runs fn on the connection when it is a transaction, else
	// in a read transaction of its own, for reads of several statements.
	Consistent(fn func(C) error) error
	// Err maps the error op met (Errors.Map).
	Err(op string, err error) error
}

// Queries is store.Reader and store.DriverTx over the shared statements S
// run on the connection C. A driver embeds it and adds or replaces the
// methods whose work differs on its database.
type Queries[C Conn[C]] struct {
	C C
	S *Statements
}

// On returns the queries run on c.
func (x Queries[C]) On(c C) Queries[C] { return Queries[C]{C: c, S: x.S} }

// row runs q into dest; found is false when it returned no row.
func (x Queries[C]) row(op, q string, args []any, dest ...any) (found bool, err error) {
	err = x.C.QueryRow(q, args...).Scan(dest...)
	if x.C.NoRows(err) {
		return false, nil
	}
	return err == nil, x.C.Err(op, err)
}

// scanned is what a Scan of a single row read gives: found false for no
// row, the mapped error of op otherwise.
func (x Queries[C]) scanned(op string, err error) (found bool, _ error) {
	if x.C.NoRows(err) {
		return false, nil
	}
	return err == nil, x.C.Err(op, err)
}

// later runs q (Conn.Later).
func (x Queries[C]) later(op, q string, args ...any) error { return x.C.Later(op, q, args...) }

// affected runs q and reports whether it changed a row.
func (x Queries[C]) affected(op, q string, args ...any) (bool, error) {
	n, err := x.C.Exec(op, q, args...)
	return n > 0, err
}

func (x Queries[C]) ConfigRows() ([]store.ConfigRow, error) {
	return Collect(x.C.Query, "load config", x.S.configAll, nil, ScanConfigRow)
}

func (x Queries[C]) PutConfig(key, value string, at time.Time) error {
	return x.later("store config", x.S.configUpsert, key, value, FormatTime(at))
}

func (x Queries[C]) DeleteConfig(key string) error {
	return x.later("reset config", x.S.configDelete, key)
}

func (x Queries[C]) IdempotencyKey(key string) (store.IdempotencyRow, bool, error) {
	var row store.IdempotencyRow
	var resp string
	found, err := x.row("look up idempotency key", x.S.idemGet, []any{key}, &row.RequestSHA256, &resp)
	if !found || err != nil {
		return store.IdempotencyRow{}, false, err
	}
	row.Response = []byte(resp)
	return row, true, nil
}

func (x Queries[C]) InsertIdempotencyKey(key string, row store.IdempotencyRow, at time.Time) error {
	return x.later("save idempotency key", x.S.idemInsert, key, row.RequestSHA256, string(row.Response), FormatTime(at))
}

// PruneIdempotencyKeys deletes the keys stored before before (at is
// unused here: a driver that records its passes takes it).
func (x Queries[C]) PruneIdempotencyKeys(before, _ time.Time) (int64, error) {
	return x.C.Exec("prune idempotency keys", x.S.idemPrune, FormatTime(before))
}

func (x Queries[C]) RegistryFiles() ([]store.RegistryFile, error) {
	return Collect(x.C.Query, "read the registries in force", x.S.registries, nil, ScanRegistryFile)
}

func (x Queries[C]) PutRegistryFile(f store.RegistryFile) error {
	return x.later("save the registry in force", x.S.registryPut, f.Name, f.YAML, f.SHA256, FormatTime(f.SyncedAt))
}

func (x Queries[C]) Stats() (store.Stats, error) {
	var s store.Stats
	_, err := x.row("count rows", x.S.stats, nil, &s.Rules, &s.Events, &s.Texts, &s.Embeddings, &s.IdempotencyKeys, &s.Pending, &s.Config)
	return s, err
}

func (x Queries[C]) Pending(id int64) (engine.Pending, bool, error) {
	p, err := ScanPending(x.C.QueryRow(x.S.pendingGet, id))
	found, err := x.scanned("load pending confirmation", err)
	if !found {
		return engine.Pending{}, false, err
	}
	return p, true, nil
}

func (x Queries[C]) ListPending(status string, limit int) ([]engine.Pending, error) {
	return Collect(x.C.Query, "list pending confirmations", x.S.pendingList, []any{status, limit}, ScanPending)
}

func (x Queries[C]) InsertPending(p engine.Pending) (int64, error) {
	return x.C.InsertID("create pending confirmation", x.S.pendingInsert, PendingArgs(&p)...)
}

func (x Queries[C]) SeePending(id int64, gate float64, at time.Time) (bool, error) {
	return x.affected("raise pending confirmation", x.S.pendingSeen, FormatTime(at), gate, id)
}

func (x Queries[C]) ResolvePending(id int64, status, ruleID string, at time.Time) (bool, error) {
	return x.affected("resolve pending confirmation", x.S.pendingResolve, status, NullStr(ruleID), FormatTime(at), id)
}
