package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// DefaultIntegrityTimeout bounds QuickCheck when the caller gives no time.
const DefaultIntegrityTimeout = 30 * time.Second

// maxIntegrityLines is how many of quick_check's findings an error quotes.
const maxIntegrityLines = 3

// QuickCheck runs SQLite's PRAGMA quick_check (the b-tree structure of every
// page, without checking that indexes match their tables) for at most
// limit (<= 0: DefaultIntegrityTimeout). It returns finished false, and no
// error, when the time ran out first: the check was not done. Errors:
// EUNAVAILABLE saying the file is damaged and quoting the first findings
// (it wraps the damaged-file fault: see Fault); internal errors when the
// check could not run.
func (db *DB) QuickCheck(ctx context.Context, limit time.Duration) (finished bool, err error) {
	if limit <= 0 {
		limit = DefaultIntegrityTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	rows, err := db.read.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return db.checkEnded(ctx, err)
	}
	defer rows.Close()
	var findings []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return db.checkEnded(ctx, err)
		}
		if line != "ok" && len(findings) < maxIntegrityLines {
			findings = append(findings, line)
		}
	}
	if err := rows.Err(); err != nil {
		return db.checkEnded(ctx, err)
	}
	if len(findings) > 0 {
		return true, db.damaged(errors.New(strings.Join(findings, "; ")))
	}
	return true, nil
}

// checkEnded is QuickCheck's answer to an error of the check: not finished
// when its time ran out, the damaged-file fault when SQLite met damage
// (SQLITE_CORRUPT), else an internal error.
func (db *DB) checkEnded(ctx context.Context, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, nil
	}
	if kindOf(err) == FaultCorrupt {
		return true, db.damaged(err)
	}
	return true, dbErr("run quick_check", err)
}

// damaged is the EUNAVAILABLE error of a file that quick_check found
// damaged; the store records it (see NoteError).
func (db *DB) damaged(findings error) error {
	err := errors.Join(engine.Errorf(engine.EUNAVAILABLE, "the database file %s is damaged (quick_check: %s): restore it from a backup",
		db.path, clipFinding(findings.Error())), &faultError{kind: FaultCorrupt, err: findings})
	db.faults.note(err)
	return err
}

// clipFinding shortens quick_check's findings to a line of a message.
func clipFinding(s string) string {
	const max = 300
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
