package memory

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// RetractResult is a retraction as stored: the event taken back, the
// manual_override event that records it, and the rule afterwards.
type RetractResult struct {
	EventID      int64           `json:"event_id"`
	RetractionID int64           `json:"retraction_id"`
	Rule         engine.RuleView `json:"rule"`
}

// Retract takes back event id, recorded wrongly, at at (zero: now), in one
// write transaction: the rule's α/β and counts lose its evidence, its last
// correction becomes that of the newest evidence left, a statement the
// event made is withdrawn (engine.Retract), and a manual_override event
// records the retraction, which the history keeps beside the event. A
// recorded captured prompt leaves no suggestion behind. Errors: ENOTFOUND
// for an unknown event; ECONFLICT for one retracted already or one that
// carries no evidence.
func (s *Service) Retract(ctx context.Context, id int64, at time.Time) (RetractResult, error) {
	return RetractEvent(ctx, s.db, id, s.at(at))
}

// RetractEvent is Service.Retract over db at at.
func RetractEvent(ctx context.Context, db *store.DB, id int64, at time.Time) (RetractResult, error) {
	var out RetractResult
	err := db.Write(ctx, at, func(tx *store.Tx) error {
		ev, err := tx.GetEvent(id)
		if err != nil {
			return err
		}
		if ev.RetractedBy != 0 {
			return engine.Errorf(engine.ECONFLICT, "event %d was retracted already (by event %d)", id, ev.RetractedBy)
		}
		r, err := tx.GetRule(ev.RuleID)
		if err != nil {
			return err
		}
		last, err := lastEvidence(tx, r.RuleID, id)
		if err != nil {
			return err
		}
		ret, err := engine.Retract(r, ev.Event, last, at)
		if err != nil {
			return err
		}
		if err := tx.UpdateEvidence(ret.Rule); err != nil {
			return err
		}
		rid, err := tx.InsertEvent(&ret.Event)
		if err != nil {
			return err
		}
		if err := tx.InsertRetraction(id, rid, at); err != nil {
			return err
		}
		cfg, err := tx.Config()
		if err != nil {
			return err
		}
		saved, err := tx.GetRule(r.RuleID)
		if err != nil {
			return err
		}
		out = RetractResult{EventID: id, RetractionID: rid, Rule: engine.View(saved, cfg, at)}
		return nil
	})
	return out, err
}

// lastEvidence is the time of the newest evidence event of rule id that
// stays: not skip, not retracted; zero when none does.
func lastEvidence(tx *store.Tx, id string, skip int64) (time.Time, error) {
	evs, err := tx.RuleEvents(id)
	if err != nil {
		return time.Time{}, err
	}
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		if e.EventID == skip || e.Polarity == 0 {
			continue
		}
		row, err := tx.GetEvent(e.EventID)
		if err != nil {
			return time.Time{}, err
		}
		if row.RetractedBy == 0 {
			return e.At, nil
		}
	}
	return time.Time{}, nil
}
