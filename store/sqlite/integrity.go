package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// maxIntegrityLines is how many of quick_check's findings an error quotes.
const maxIntegrityLines = 3

// QuickCheck runs SQLite's PRAGMA quick_check (the b-tree structure of every
// page, without checking that indexes match their tables) for at most
// limit. It returns finished false, and no error, when the time ran out
// first: the check was not done. Errors: EUNAVAILABLE saying the file is
// damaged and quoting the first findings (it carries the damaged-file
// fault: see store.Fault); internal errors when the check could not run.
func (d *Driver) QuickCheck(ctx context.Context, limit time.Duration) (finished bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	rows, err := d.read.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return d.checkEnded(ctx, err)
	}
	defer rows.Close()
	var findings []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return d.checkEnded(ctx, err)
		}
		if line != "ok" && len(findings) < maxIntegrityLines {
			findings = append(findings, line)
		}
	}
	if err := rows.Err(); err != nil {
		return d.checkEnded(ctx, err)
	}
	if len(findings) > 0 {
		return true, d.damaged(errors.New(strings.Join(findings, "; ")))
	}
	return true, nil
}

// checkEnded is QuickCheck's answer to an error of the check: not finished
// when its time ran out, the damaged-file fault when SQLite met damage
// (SQLITE_CORRUPT), else an internal error.
func (d *Driver) checkEnded(ctx context.Context, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, nil
	}
	if kindOf(err) == store.FaultCorrupt {
		return true, d.damaged(err)
	}
	return true, dbErr("run quick_check", err)
}

// damaged is the EUNAVAILABLE error of a file that quick_check found
// damaged; the driver records it (see NoteError).
func (d *Driver) damaged(findings error) error {
	err := store.NewFault(store.FaultCorrupt, fmt.Sprintf("the database file %s is damaged (quick_check: %s): restore it from a backup",
		d.path, clipFinding(findings.Error())), findings)
	d.faults.Note(err)
	return err
}

// clipFinding shortens quick_check's findings to a line of a message: over
// 300 bytes, it keeps at most the first 300, cut between runes, and adds "…".
func clipFinding(s string) string {
	const max = 300
	if len(s) > max {
		return engine.CutAtRune(s, max) + "…"
	}
	return s
}
