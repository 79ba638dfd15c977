package sqlite

import (
	"database/sql"
	"errors"

	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// stmts are the shared statements in SQLite's dialect: ? placeholders
// (numbered where a statement uses an argument twice), JSON kept as text, tag lists as JSON arrays, and a rule
// row's row_version stamped by the statement that writes it, with the
// 'rules' counter after the trigger bumps it (see 001_init.sql).
var stmts = sqldriver.NewStatements(sqldriver.Dialect{
	Param:       sqldriver.NumberedParam,
	InOrder:     "?",
	RuleVersion: `(SELECT value + 1 FROM store_counters WHERE name = 'rules')`,
	Tags:        sqldriver.JSONTags{},
	// TableOptions: STRICT tables check their column types.
	TableOptions: " STRICT",
})

// Query runs q and calls fn for each row; op names what it does in errors.
func (r runner) Query(op, q string, args []any, fn func(sqldriver.Scanner) error) error {
	rows, err := r.query(q, args...)
	if err != nil {
		return r.d.dbErr(op, err)
	}
	defer rows.Close()
	return r.d.dbErr(op, sqldriver.Each(rows, fn))
}

// QueryRow runs q, which returns at most one row.
func (r runner) QueryRow(q string, args ...any) sqldriver.Scanner { return r.queryRow(q, args...) }

// NoRows reports whether err is a Scan's error of a query that returned no
// row.
func (runner) NoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// Exec runs q and returns how many rows it changed.
func (r runner) Exec(op, q string, args ...any) (int64, error) {
	res, err := r.exec(q, args...)
	if err != nil {
		return 0, r.d.dbErr(op, err)
	}
	n, err := res.RowsAffected()
	return n, r.d.dbErr(op, err)
}

// Later runs q at once: SQLite answers each statement in-process.
func (r runner) Later(op, q string, args ...any) error {
	_, err := r.exec(q, args...)
	return r.d.dbErr(op, err)
}

// InsertID runs q and returns the rowid it inserted.
func (r runner) InsertID(op, q string, args ...any) (int64, error) {
	res, err := r.exec(q, args...)
	if err != nil {
		return 0, r.d.dbErr(op, err)
	}
	id, err := res.LastInsertId()
	return id, r.d.dbErr(op, err)
}

// ScanBlob scans the row into dest, whose last element it sets to read the
// binary column in place (sql.RawBytes).
func (runner) ScanBlob(sc sqldriver.Scanner, dest []any) ([]byte, error) {
	var b sql.RawBytes
	dest[len(dest)-1] = &b
	err := sc.Scan(dest...)
	return b, err
}

// Consistent runs fn in r's transaction, or in a read transaction of its
// own when r has none, for reads of several statements.
func (r runner) Consistent(fn func(runner) error) error {
	if r.tx != nil {
		return fn(r)
	}
	return r.d.readTx(r.ctx, fn)
}

// Err maps the error op met (Driver.dbErr).
func (r runner) Err(op string, err error) error { return r.d.dbErr(op, err) }
