package sqldriver

import (
	"time"

	"github.com/lexsona/lexsona/store"
)

// scanEventRow reads ScanEvent's columns and the retracting event's id.
func scanEventRow(sc Scanner) (store.EventRow, error) {
	var row store.EventRow
	var err error
	row.Event, err = ScanEvent(extraScanner{sc, &row.RetractedBy})
	return row, err
}

// extraScanner appends dest to every Scan: the columns after an event's.
type extraScanner struct {
	sc   Scanner
	dest any
}

func (e extraScanner) Scan(dest ...any) error { return e.sc.Scan(append(dest, e.dest)...) }

func (x Queries[C]) Event(id int64) (store.EventRow, bool, error) {
	row, err := scanEventRow(x.C.QueryRow(x.S.eventGet, id))
	found, err := x.scanned("load event", err)
	return row, found, err
}

func (x Queries[C]) EventsSince(since time.Time, limit int) ([]store.EventRow, error) {
	return Collect(x.C.Query, "read recent events", x.S.eventsSince, []any{FormatTime(since), limit}, scanEventRow)
}

func (x Queries[C]) InsertRetraction(id, by int64, at time.Time) error {
	return x.later("retract event", x.S.retractionInsert, id, by, FormatTime(at))
}

func (x Queries[C]) InsertCapture(e store.CaptureEntry) error {
	return x.later("log capture", x.S.captureInsert, FormatTime(e.At), NullStr(e.FrameID), e.Action, e.Gate, NullStr(e.Reason),
		e.Excerpt, NullStr(e.RuleID), nullID(e.PendingID), nullID(e.EventID))
}

func (x Queries[C]) CountCaptures(frameID string) (int, error) {
	var n int
	_, err := x.row("count captures", x.S.captureCount, []any{frameID}, &n)
	return n, err
}

func (x Queries[C]) PruneCaptures(keep int) error {
	return x.later("prune capture log", x.S.capturePrune, keep)
}

func (x Queries[C]) CapturesSince(since time.Time, limit int) ([]store.CaptureEntry, error) {
	return Collect(x.C.Query, "read capture log", x.S.captureSince, []any{FormatTime(since), limit}, func(sc Scanner) (store.CaptureEntry, error) {
		var e store.CaptureEntry
		var at string
		if err := sc.Scan(&e.ID, &at, &e.FrameID, &e.Action, &e.Gate, &e.Reason, &e.Excerpt, &e.RuleID, &e.PendingID, &e.EventID); err != nil {
			return e, err
		}
		var err error
		e.At, err = ParseTime(at)
		return e, err
	})
}

// nullID is id, or NULL for 0.
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}
