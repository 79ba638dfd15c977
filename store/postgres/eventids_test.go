package postgres

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/groupcommit/committest"
)

// allEventIDs returns every event id of the store, by id.
func allEventIDs(t *testing.T, d *Driver) []int64 {
	t.Helper()
	rows, err := d.pool.Query(context.Background(), `SELECT event_id FROM persona_events ORDER BY event_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestEventIDs: write transactions number their events from the sequence,
// so ids stay consecutive whichever instance writes, a rolled-back write
// leaves no gap, and an insert numbered by the sequence itself (a writer
// that does not number its events) takes the next id.
func TestEventIDs(t *testing.T) {
	ctx := context.Background()
	a, ad, dsn := mustOpen(t)
	b, _ := mustOpenURL(t, dsn)
	mustCreate(t, a, "tool.x") // event 1
	c := engine.Correction{RuleID: "tool.x", Polarity: engine.Reinforce, UserText: "again", At: t0}
	steps := []struct {
		name string
		run  func() (int64, error) // the id of the event written, 0 when none
	}{
		{"a records", func() (int64, error) { r, err := record(ctx, a, c); return r.EventID, err }},
		{"b records", func() (int64, error) { r, err := record(ctx, b, c); return r.EventID, err }},
		{"a rolls back", func() (int64, error) {
			errRefused := errors.New("refused")
			err := ad.Write(ctx, func(dt store.DriverTx) error {
				if _, err := dt.InsertEvent(&engine.Event{RuleID: "tool.x", EventType: engine.EventManualOverride, Alpha: 2, Beta: 5, At: t0}); err != nil {
					return err
				}
				return errRefused
			})
			if !errors.Is(err, errRefused) {
				return 0, err
			}
			return 0, nil
		}},
		{"the sequence numbers one", func() (int64, error) {
			var id int64
			err := ad.pool.QueryRow(ctx, `INSERT INTO persona_events (rule_id, event_type, alpha, beta, at)
				VALUES ('tool.x', 'manual_override', 2, 5, '2025-03-01T12:00:00Z') RETURNING event_id`).Scan(&id)
			return id, err
		}},
		{"b records again", func() (int64, error) { r, err := record(ctx, b, c); return r.EventID, err }},
		{"a records again", func() (int64, error) { r, err := record(ctx, a, c); return r.EventID, err }},
	}
	want := int64(2)
	for _, s := range steps {
		id, err := s.run()
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if id == 0 {
			continue
		}
		if id != want {
			t.Errorf("%s: event id %d, want %d", s.name, id, want)
		}
		want = id + 1
	}
	if ids, wantIDs := allEventIDs(t, ad), []int64{1, 2, 3, 4, 5, 6}; !slices.Equal(ids, wantIDs) {
		t.Errorf("event ids %v, want %v", ids, wantIDs)
	}
}

// TestEventIDsOfGroup: members of one group number their events one after
// another; a failed member's events are rolled back and its ids skipped.
func TestEventIDsOfGroup(t *testing.T) {
	ctx := context.Background()
	db, d, _ := mustOpen(t)
	mustCreate(t, db, "tool.x") // event 1
	release, waitFirst := committest.Hold(t, db)
	fails := []bool{false, true, false}
	ids := make([]int64, len(fails))
	errs := make([]error, len(fails))
	var wg sync.WaitGroup
	for i, fail := range fails {
		wg.Go(func() {
			errs[i] = d.Write(ctx, func(dt store.DriverTx) error {
				ev := &engine.Event{RuleID: "tool.x", EventType: engine.EventManualOverride, Alpha: 2, Beta: 5, At: t0}
				var err error
				if ids[i], err = dt.InsertEvent(ev); err != nil {
					return err
				}
				if fail {
					return engine.Errorf(engine.EINVALID, "refused")
				}
				return nil
			})
		})
		committest.WaitQueued(d.writer, i+1)
	}
	release()
	wg.Wait()
	if err := waitFirst(); err != nil {
		t.Fatal(err)
	}
	for i, fail := range fails {
		if (errs[i] != nil) != fail {
			t.Errorf("member %d: %v, want failure %v", i, errs[i], fail)
		}
	}
	if !slices.Equal(ids, []int64{2, 3, 4}) {
		t.Errorf("ids given %v, want [2 3 4]", ids)
	}
	if got := allEventIDs(t, d); !slices.Equal(got, []int64{1, 2, 4}) {
		t.Errorf("stored event ids %v, want [1 2 4]", got)
	}
	if r, err := record(ctx, db, engine.Correction{RuleID: "tool.x", Polarity: engine.Reinforce, UserText: "x", At: t0}); err != nil || r.EventID != 5 {
		t.Errorf("next event %d (%v), want 5", r.EventID, err)
	}
}
