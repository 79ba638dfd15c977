package memory

import (
	"fmt"
	"time"

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

// ApplyCorrection records the validated correction c on its rule inside tx:
// it applies the evidence (engine.Rule.ApplyEvidence), saves the rule's
// evidence and appends the event (texts, frame, scope, classifier context,
// alpha/beta after). For a counterexample on an active-eligible rule it
// proposes an exception rule when enough counterexamples share a context tag
// (engine.DetectExceptionPatternCounts); when the evidence carries a
// candidate past the evidence floor and confidence threshold of its category
// with candidates.auto_promote on (engine.PromoteCandidate), the candidate
// becomes active-eligible with a promotion event, and promoted says so. The
// result's confidence and activation are the rule's afterwards
// (engine.Assess). Idempotency keys are the caller's. Errors: EINVALID for
// no rule id, a malformed id, a bad score or an archived rule, ENOTFOUND for
// an unknown rule, the store's otherwise.
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
	if rule.Status == engine.StatusArchived {
		return RecordResult{}, false, engine.Errorf(engine.EINVALID, "rule %s is archived: restore it (status active-eligible) before recording corrections on it", rule.RuleID)
	}
	rule.ApplyEvidence(c.Polarity, c.At)
	ev := engine.Event{
		RuleID: rule.RuleID, EventType: c.Polarity.EventType(), UserText: c.UserText, AgentOutput: c.AgentOutput,
		FrameID: c.FrameID, Scope: c.Scope, Decision: c.Decision, Score: c.Score, Candidates: c.Candidates,
		Model: c.Model, Detail: c.Detail, Polarity: c.Polarity, Alpha: rule.Alpha, Beta: rule.Beta, At: c.At,
	}
	if c.Confirmation {
		ev.EventType = engine.EventConfirmation
	}
	if err := tx.UpdateEvidence(rule); err != nil {
		return RecordResult{}, false, err
	}
	id, err := tx.InsertEvent(&ev)
	if err != nil {
		return RecordResult{}, false, err
	}
	res = RecordResult{EventID: id, RuleID: rule.RuleID, EventType: ev.EventType, Alpha: rule.Alpha, Beta: rule.Beta}
	if c.Polarity == engine.Counter && rule.Status == engine.StatusActiveEligible {
		if res.Exception, err = proposeException(tx, &rule, cfg, c.At); err != nil {
			return RecordResult{}, false, err
		}
	}
	if promoted = engine.PromoteCandidate(&rule, cfg, c.At); promoted {
		if err := promote(tx, &rule, cfg, c); err != nil {
			return RecordResult{}, false, err
		}
	}
	a := engine.Assess(&rule, cfg, c.At)
	res.Confidence, res.Active = a.ConfidenceFinal, a.Active
	return res, promoted, nil
}

// promote saves rule, just promoted from candidate by the correction c, with
// its promotion event.
func promote(tx *store.Tx, rule *engine.Rule, cfg engine.Config, c engine.Correction) error {
	if err := tx.SaveRule(*rule); err != nil {
		return err
	}
	a := engine.Assess(rule, cfg, c.At)
	_, err := tx.AppendEvent(engine.Event{
		RuleID: rule.RuleID, EventType: engine.EventPromotion, Scope: c.Scope, Alpha: rule.Alpha, Beta: rule.Beta, At: c.At,
		Detail: fmt.Sprintf("promoted from candidate: %d corrections, confidence %.4f (candidates.auto_promote)", a.Evidence, a.ConfidenceFinal),
	})
	return err
}

// proposeException runs engine.DetectExceptionPatternCounts over the context
// tags of rule's counterexamples (counted by the store as they are recorded)
// and inserts the proposed candidate rule with its creation event. Tags
// already proposed for rule (whatever became of the proposal) or rejected are
// skipped. A proposal whose id is taken or invalid (too long) is dropped: it
// must never make the correction fail. Proposals get no rule text, so the
// classifier never matches corrections to them.
func proposeException(tx *store.Tx, rule *engine.Rule, cfg engine.Config, at time.Time) (*engine.ExceptionProposal, error) {
	counts, err := tx.CounterexampleTags(rule.RuleID)
	if err != nil {
		return nil, err
	}
	hit := false
	for _, n := range counts {
		hit = hit || n >= cfg.ExceptionMinCount
	}
	if !hit {
		return nil, nil
	}
	tags, err := tx.ExceptionTags(rule.RuleID)
	if err != nil {
		return nil, err
	}
	skip := make(map[string]bool, len(tags))
	for _, tag := range tags {
		skip[tag] = true
	}
	p := engine.DetectExceptionPatternCounts(rule, counts, skip, cfg, at)
	if p == nil {
		return nil, nil
	}
	p.Rule.Source = engine.SourceCorrection
	if store.CheckRule(&p.Rule) != nil {
		return nil, nil
	}
	if taken, err := tx.RuleExists(p.Rule.RuleID); err != nil || taken {
		return nil, err
	}
	if err := tx.InsertRuleRow(store.RuleRow{Rule: p.Rule}); err != nil {
		return nil, err
	}
	ev := engine.Event{
		RuleID: p.Rule.RuleID, EventType: engine.EventCreation, Scope: p.Rule.Scope, Alpha: p.Rule.Alpha, Beta: p.Rule.Beta, At: at,
		Detail: fmt.Sprintf("proposed as an exception to %s: %d of its counterexamples came in %s contexts", rule.RuleID, p.Count, p.Tag),
	}
	if _, err := tx.InsertEvent(&ev); err != nil {
		return nil, err
	}
	return p, nil
}
