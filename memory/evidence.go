package memory

import (
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// RecordResult is what recording a correction did: the event, the rule's
// evidence after it, its confidence and activation at the correction's time,
// and the exception rule it proposed, if any.
type RecordResult struct {
	EventID    int64                     `json:"event_id"`
	RuleID     string                    `json:"rule_id"`
	EventType  engine.EventType          `json:"event_type"`
	Alpha      float64                   `json:"alpha"`
	Beta       float64                   `json:"beta"`
	Confidence float64                   `json:"confidence"`
	Active     bool                      `json:"active"`
	Exception  *engine.ExceptionProposal `json:"exception_proposal,omitempty"`
}

// ApplyCorrection records the checked correction c on its rule inside tx,
// in three steps: it reads the rule and config, lets engine.Correct decide
// (reading, for a counterexample on an active-eligible rule, the rule's
// counterexample tags and past exception proposals through
// store.Tx.ExceptionState) — the evidence, the event, the
// promotion of a candidate the evidence carries past its category's floor
// and threshold with candidates.auto_promote on, the exception proposed when
// enough counterexamples share a context tag — and writes what it decided:
// the rule, the event, then the promotion event or the exception rule with
// its creation event. A proposal whose id is taken or invalid (too long) is
// dropped: it never makes the correction fail. Proposals get no rule text,
// so the classifier never matches corrections to them. Idempotency keys are
// the caller's. Errors: EINVALID for no rule id, a malformed id, a bad score
// or an archived rule, ENOTFOUND for an unknown rule, the store's otherwise.
func ApplyCorrection(tx *store.Tx, c engine.Correction) (res RecordResult, promoted bool, err error) {
	if c.RuleID == "" {
		return RecordResult{}, false, engine.Errorf(engine.EINVALID, "rule id is empty: name the rule the correction is about")
	}
	cfg, err := tx.Config()
	if err != nil {
		return RecordResult{}, false, err
	}
	rule, err := tx.GetRule(c.RuleID)
	if err != nil {
		return RecordResult{}, false, err
	}
	out, err := engine.Correct(rule, c, cfg, tx.ExceptionState)
	if err != nil {
		return RecordResult{}, false, err
	}
	return writeOutcome(tx, &out)
}

// writeOutcome writes what engine.Correct decided, in tx.
func writeOutcome(tx *store.Tx, out *engine.Outcome) (RecordResult, bool, error) {
	write := tx.UpdateEvidence
	if out.Promotion != nil {
		write = tx.SaveRule
	}
	if err := write(out.Rule); err != nil {
		return RecordResult{}, false, err
	}
	id, err := tx.InsertEvent(&out.Event)
	if err != nil {
		return RecordResult{}, false, err
	}
	res := RecordResult{EventID: id, RuleID: out.Rule.RuleID, EventType: out.Event.EventType, Alpha: out.Rule.Alpha,
		Beta: out.Rule.Beta, Confidence: out.Assessment.ConfidenceFinal, Active: out.Assessment.Active}
	if out.Promotion != nil {
		if _, err := tx.InsertEvent(out.Promotion); err != nil {
			return RecordResult{}, false, err
		}
	}
	if out.Exception != nil {
		if res.Exception, err = insertException(tx, out.Exception, out.ExceptionEvent); err != nil {
			return RecordResult{}, false, err
		}
	}
	return res, out.Promotion != nil, nil
}

// insertException inserts a proposed exception rule with its creation
// event, or drops it (nil) when its id is invalid or taken.
func insertException(tx *store.Tx, p *engine.ExceptionProposal, ev *engine.Event) (*engine.ExceptionProposal, error) {
	if store.CheckRule(&p.Rule) != nil {
		return nil, nil
	}
	if taken, err := tx.RuleExists(p.Rule.RuleID); err != nil || taken {
		return nil, err
	}
	if err := tx.InsertRuleRow(store.RuleRow{Rule: p.Rule}); err != nil {
		return nil, err
	}
	if _, err := tx.InsertEvent(ev); err != nil {
		return nil, err
	}
	return p, nil
}
