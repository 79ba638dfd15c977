package store

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// EventRow is an event with the id of the event that retracted it (0 when
// none did).
type EventRow struct {
	engine.Event
	RetractedBy int64 `json:"retracted_by,omitempty"`
}

// CaptureEntry is one prompt a hook captured, as the capture log keeps it:
// what it became (memory.Capture's action), the gate's probability, why,
// and a short excerpt of its prose.
type CaptureEntry struct {
	ID        int64     `json:"id"`
	At        time.Time `json:"at"`
	FrameID   string    `json:"frame_id,omitempty"`
	Action    string    `json:"action"`
	Gate      *float64  `json:"gate,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	Excerpt   string    `json:"excerpt"`
	RuleID    string    `json:"rule_id,omitempty"`
	PendingID int64     `json:"pending_id,omitempty"`
	EventID   int64     `json:"event_id,omitempty"`
}

// GetEvent returns event id with the event that retracted it. Errors:
// ENOTFOUND naming an unknown id.
func (t *Tx) GetEvent(id int64) (EventRow, error) { return getEvent(t.dt, id) }

// GetEvent is Tx.GetEvent on committed data.
func (db *DB) GetEvent(ctx context.Context, id int64) (EventRow, error) {
	return getEvent(db.reader(ctx), id)
}

func getEvent(r Reader, id int64) (EventRow, error) {
	e, ok, err := r.Event(id)
	if err == nil && !ok {
		err = engine.Errorf(engine.ENOTFOUND, "event %d not found", id)
	}
	return e, err
}

// InsertRetraction records that event id was retracted by event by at at.
func (t *Tx) InsertRetraction(id, by int64, at time.Time) error {
	return t.dt.InsertRetraction(id, by, at)
}

// EventsSince lists the events of every rule at or after since that were
// learned from someone's words (evidence, violations, rules created from a
// correction), newest first, at most limit.
func (db *DB) EventsSince(ctx context.Context, since time.Time, limit int) ([]EventRow, error) {
	return db.reader(ctx).EventsSince(since, limit)
}

// LogCapture appends e to the capture log and drops all but its newest
// keep entries.
func (t *Tx) LogCapture(e CaptureEntry, keep int) error {
	if err := t.dt.InsertCapture(e); err != nil {
		return err
	}
	return t.dt.PruneCaptures(keep)
}

// CountCaptures counts the prompts of session frameID the capture log
// holds.
func (t *Tx) CountCaptures(frameID string) (int, error) { return t.dt.CountCaptures(frameID) }

// CapturesSince lists the capture log's entries at or after since, newest
// first, at most limit.
func (db *DB) CapturesSince(ctx context.Context, since time.Time, limit int) ([]CaptureEntry, error) {
	return db.reader(ctx).CapturesSince(since, limit)
}
