package memory

import (
	"fmt"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// applyEvidence records c on its rule inside tx (store.Tx.ApplyCorrection:
// the evidence, the event, an exception proposal when counterexamples
// share a context tag) and, when that evidence carries a candidate past the
// evidence floor and confidence threshold of its category with
// candidates.auto_promote on (engine.PromoteCandidate), makes it
// active-eligible with a promotion event in the same transaction; promoted
// says so and the result's Active is the rule's activation afterwards.
// Errors: the store's (ENOTFOUND for an unknown rule, EINVALID for an
// archived one).
func applyEvidence(tx *store.Tx, c engine.Correction) (res store.RecordResult, promoted bool, err error) {
	cfg, err := tx.Config()
	if err != nil {
		return store.RecordResult{}, false, err
	}
	if res, err = tx.ApplyCorrection(c, cfg); err != nil {
		return store.RecordResult{}, false, err
	}
	r, err := tx.GetRule(res.RuleID)
	if err != nil {
		return store.RecordResult{}, false, err
	}
	if !engine.PromoteCandidate(&r, cfg, c.At) {
		return res, false, nil
	}
	if err := tx.SaveRule(r); err != nil {
		return store.RecordResult{}, false, err
	}
	a := engine.Assess(&r, cfg, c.At)
	if _, err := tx.AppendEvent(engine.Event{
		RuleID: r.RuleID, EventType: engine.EventPromotion, Scope: c.Scope, Alpha: r.Alpha, Beta: r.Beta, At: c.At,
		Detail: fmt.Sprintf("promoted from candidate: %d corrections, confidence %.4f (candidates.auto_promote)", a.Evidence, a.ConfidenceFinal),
	}); err != nil {
		return store.RecordResult{}, false, err
	}
	res.Confidence, res.Active = a.ConfidenceFinal, a.Active
	return res, true, nil
}
