package store

import "github.com/lexsona/lexsona/engine"

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

// ApplyCorrection records c on its rule inside the transaction: it applies the
// evidence (engine.Rule.ApplyEvidence), saves the rule, appends the event
// (texts, frame, scope, classifier context, alpha/beta after) and, for a
// counterexample on an active-eligible rule, proposes an exception rule when
// enough counterexamples share a context tag (see proposeException). It does
// not handle idempotency keys (see LookupIdempotency and SaveIdempotency).
// Errors: EINVALID or ETOOLARGE for a bad correction (no rule id, malformed
// id, empty text, bad scope, no time, a bad score…) or an archived rule,
// ENOTFOUND for an unknown rule.
func (t *Tx) ApplyCorrection(c engine.Correction, cfg engine.Config) (RecordResult, error) {
	if err := c.Normalize(); err != nil {
		return RecordResult{}, err
	}
	if c.RuleID == "" {
		return RecordResult{}, engine.Errorf(engine.EINVALID, "rule id is empty: name the rule the correction is about")
	}
	if c.Score != nil {
		if err := validateFloat("score", *c.Score, -1); err != nil {
			return RecordResult{}, err
		}
	}
	rule, err := t.GetRule(c.RuleID)
	if err != nil {
		return RecordResult{}, err
	}
	if rule.Status == engine.StatusArchived {
		return RecordResult{}, engine.Errorf(engine.EINVALID, "rule %s is archived: restore it (status active-eligible) before recording corrections on it", rule.RuleID)
	}
	rule.ApplyEvidence(c.Polarity, c.At)
	if err := t.dt.UpdateEvidence(rule); err != nil {
		return RecordResult{}, err
	}
	ev := engine.Event{
		RuleID: rule.RuleID, EventType: c.Polarity.EventType(), UserText: c.UserText, AgentOutput: c.AgentOutput,
		FrameID: c.FrameID, Scope: c.Scope, Decision: c.Decision, Score: c.Score, Candidates: c.Candidates,
		Model: c.Model, Detail: c.Detail, Polarity: c.Polarity, Alpha: rule.Alpha, Beta: rule.Beta, At: c.At,
	}
	if c.Confirmation {
		ev.EventType = engine.EventConfirmation
	}
	id, err := t.insertEvent(&ev)
	if err != nil {
		return RecordResult{}, err
	}
	a := engine.Assess(&rule, cfg, c.At)
	res := RecordResult{
		EventID: id, RuleID: rule.RuleID, EventType: ev.EventType, Alpha: rule.Alpha, Beta: rule.Beta,
		Confidence: a.ConfidenceFinal, Active: a.Active,
	}
	if c.Polarity == engine.Counter && rule.Status == engine.StatusActiveEligible {
		if res.Exception, err = t.proposeException(&rule, cfg, c.At); err != nil {
			return RecordResult{}, err
		}
	}
	return res, nil
}
