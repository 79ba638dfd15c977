package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/lexsona/lexsona/engine"
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

var qRuleEvidence = sqlq(`UPDATE persona_rules SET alpha = ?, beta = ?, reinforcements = ?, counter_examples = ?,
	first_seen = ?, last_correction = ?, updated_at = ?, row_version = ` + stampVersion + ` WHERE rule_id = ?`)

// CorrectionSHA256 is the request fingerprint Record stores with an
// idempotency key: every field of the (validated) correction except its time
// and the key itself, so a client that retries later with the same content
// gets the first answer, and one that reuses the key for other content gets a
// conflict.
func CorrectionSHA256(c engine.Correction) string {
	c.At, c.IdempotencyKey = time.Time{}, ""
	b, _ := json.Marshal(c) // a Correction always encodes
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Record records one correction on the rule it names, in one transaction.
// With an idempotency key, a retry of the same correction returns the first
// result with replayed=true and writes nothing. Errors: EINVALID or ETOOLARGE
// for a bad correction (no rule id, malformed id, empty text, bad scope, no
// time…) or an archived rule, ENOTFOUND for an unknown rule, ECONFLICT when
// the idempotency key was used for a different correction. On error nothing
// is written.
func (db *DB) Record(ctx context.Context, c engine.Correction) (RecordResult, bool, error) {
	if err := c.Validate(); err != nil {
		return RecordResult{}, false, err
	}
	if c.RuleID == "" {
		return RecordResult{}, false, engine.Errorf(engine.EINVALID, "rule id is empty: name the rule the correction is about")
	}
	var res RecordResult
	replayed := false
	err := db.Write(ctx, func(tx *Tx) error {
		var sum string
		if c.IdempotencyKey != "" {
			sum = CorrectionSHA256(c)
			found, err := tx.LookupIdempotency(c.IdempotencyKey, sum, &res)
			if err != nil || found {
				replayed = found
				return err
			}
		}
		cfg, err := tx.Config()
		if err != nil {
			return err
		}
		if res, err = tx.ApplyCorrection(c, cfg); err != nil {
			return err
		}
		if c.IdempotencyKey != "" {
			return tx.SaveIdempotency(c.IdempotencyKey, sum, res)
		}
		return nil
	})
	if err != nil {
		return RecordResult{}, false, err
	}
	return res, replayed, nil
}

// ApplyCorrection records c on its rule inside the transaction: it applies the
// evidence (engine.Rule.ApplyEvidence), saves the rule, appends the event
// (texts, frame, scope, classifier context, alpha/beta after) and, for a
// counterexample on an active-eligible rule, proposes an exception rule when
// enough counterexamples share a context tag (see proposeException). It does
// not handle idempotency keys (Record does). Errors: as Record's.
func (t *Tx) ApplyCorrection(c engine.Correction, cfg engine.Config) (RecordResult, error) {
	if err := c.Validate(); err != nil {
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
	if _, err := t.exec(qRuleEvidence, rule.Alpha, rule.Beta, rule.Reinforcements, rule.CounterExamples,
		fmtTime(rule.FirstSeen), fmtTime(rule.LastCorrection), fmtTime(time.Now()), rule.RuleID); err != nil {
		return RecordResult{}, dbErr("save evidence of "+rule.RuleID, err)
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
