package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/redact"
	"github.com/lexsona/lexsona/store"
)

// RecordResponse is what Record did. The store's record result (event_id,
// rule_id, event_type, alpha, beta, confidence, active, exception_proposal) is
// there for auto_match and explicit (the reinforcement or counterexample) and
// for new_rule (the candidate's creation event, plus created_rule); it is
// absent for confirm, which stores a pending confirmation (pending_id) and
// nothing else. A generic text ("that's wrong", "nope, try again") or a
// counterexample that matches no rule is new_rule with nothing stored at all
// (Stored is false): no rule can be learned from it, and its reason says so.
type RecordResponse struct {
	*RecordResult
	Decision string  `json:"decision"`
	Score    float64 `json:"score"`
	// Polarity is the polarity recorded (auto_match, explicit) or kept with
	// the pending confirmation (confirm): −1 when the caller said so or the
	// classifier found a contradiction (Reason then starts with
	// "contradiction"), 1 otherwise.
	Polarity    engine.Polarity    `json:"polarity"`
	Candidates  []engine.Candidate `json:"candidates"`
	PendingID   int64              `json:"pending_id,omitempty"`
	CreatedRule *engine.Rule       `json:"created_rule,omitempty"`
	Reason      string             `json:"reason,omitempty"`
	// Redacted counts the secrets replaced by placeholders in text and agent output before storing.
	Redacted int `json:"redacted"`
	// Promoted is set when this correction made its candidate rule active.
	Promoted bool `json:"promoted,omitempty"`
	// Merged is set when a captured prompt raised the count of the open
	// suggestion PendingID instead of adding one; Replaced names the
	// suggestion of the same session it replaced under the inbox budget.
	Merged   bool  `json:"merged,omitempty"`
	Replaced int64 `json:"replaced,omitempty"`
}

// Stored reports whether Record wrote anything: evidence, a pending
// confirmation or a candidate rule.
func (r RecordResponse) Stored() bool { return r.RecordResult != nil || r.PendingID != 0 }

// Record classifies a correction and acts on the decision in one write
// transaction:
//   - auto_match and explicit (c.RuleID set, or a CORRECT[rule_id]: prefix):
//     a reinforcement on the rule, or a counterexample when c.Polarity is −1
//     or (auto_match) the classifier found that the text contradicts the
//     rule; the event carries the text, decision, score, candidates and model;
//   - confirm: a pending confirmation (text, instruction, scope, polarity —
//     −1 for a contradiction, so accepting it records a counterexample —
//     frame, agent output, candidates, model), nothing else;
//   - new_rule: nothing for a generic text or a counterexample (see
//     RecordResponse); otherwise a candidate rule (engine.NewCandidateRule,
//     id proposed.<slug>-<hash>, suffixed -2…-9 when taken; scoped to the
//     correction's environment, project and agent family) with its creation
//     event, and the vector already computed stored as its template's
//     embedding, so the same correction matches it next time.
//
// c.Instruction, when given, is what is classified and a proposed rule's
// text (see classifiedText); the user's words stay the event's text, and
// the event's detail says how the reporter read them.
// c.Polarity 0 means a reinforcement unless the classifier finds a
// contradiction; a zero c.At means now. Secrets in the text, the agent
// output and the instruction are replaced by placeholders before anything
// is classified or stored.
// With c.IdempotencyKey the whole operation is idempotent: a retry with the
// same correction (At aside) returns the first response with replayed=true
// and writes nothing; the key is looked up once, in the write transaction.
// Errors: EINVALID naming a bad text, polarity, frame id, agent output,
// key, instruction, scope or time (in the future); ETOOLARGE for a text
// over 1 MiB or an instruction over 500 characters;
// ENOTFOUND for an unknown rule; ECONFLICT for an archived rule, or when
// the key was used for another correction; the classifier's and the
// store's otherwise. On error nothing is written.
func (s *Service) Record(ctx context.Context, c engine.Correction) (RecordResponse, bool, error) {
	c, redacted, err := prepareCorrection(c, s.now())
	if err != nil {
		return RecordResponse{}, false, err
	}
	c.Detail = classifier.JoinReasons(c.Detail, reportedAs(c.Instruction))
	cl, err := s.clf.Decide(ctx, classifiedText(c), c.Scope, c.RuleID, c.Polarity == engine.Counter)
	if err != nil {
		return RecordResponse{}, false, err
	}
	return s.commit(ctx, c, cl, redacted, act)
}

// actFunc writes what a classification calls for, inside tx, into resp:
// act for a recorded correction, suggest for a captured prompt.
type actFunc func(tx *store.Tx, c engine.Correction, cl *classifier.Classification, resp *RecordResponse) error

// prepareCorrection normalises and validates c (NormalizeCorrection) and
// replaces the secrets of its text, agent output and instruction by placeholders,
// returning how many it replaced. Errors: NormalizeCorrection's.
func prepareCorrection(c engine.Correction, now time.Time) (engine.Correction, int, error) {
	c, err := NormalizeCorrection(c, now)
	if err != nil {
		return c, 0, err
	}
	return c, redact.Strings(&c.UserText, &c.AgentOutput, &c.Instruction), nil
}

// commit writes what the classification cl of the prepared correction c
// calls for, in one write transaction under c's idempotency key (see
// Record); redacted is the count of secrets prepareCorrection replaced, act
// what writes the decision.
func (s *Service) commit(ctx context.Context, c engine.Correction, cl classifier.Classification, redacted int, act actFunc) (RecordResponse, bool, error) {
	sum, err := fingerprint(c)
	if err != nil {
		return RecordResponse{}, false, err
	}
	var resp RecordResponse
	replayed := false
	err = s.db.Write(ctx, s.Now(), func(tx *store.Tx) error {
		if c.IdempotencyKey != "" {
			resp = RecordResponse{}
			found, err := tx.LookupIdempotency(c.IdempotencyKey, sum, &resp)
			if err != nil || found {
				replayed = found
				return err
			}
		}
		resp = RecordResponse{Decision: cl.Decision, Score: cl.Score, Polarity: cl.Polarity, Candidates: cl.Candidates, Reason: cl.Reason, Redacted: redacted}
		if err := act(tx, c, &cl, &resp); err != nil {
			return err
		}
		if c.IdempotencyKey != "" {
			return tx.SaveIdempotency(c.IdempotencyKey, sum, resp)
		}
		return nil
	})
	if err != nil {
		return RecordResponse{}, false, err
	}
	if resp.Candidates == nil {
		resp.Candidates = []engine.Candidate{}
	}
	return resp, replayed, nil
}

// act writes what decision cl calls for, inside tx, into resp. A rule named
// in the text (CORRECT[rule_id]:) is an explicit act: it states the rule
// (engine.Correction.Stated), unless c says which act it is already.
func act(tx *store.Tx, c engine.Correction, cl *classifier.Classification, resp *RecordResponse) error {
	switch cl.Decision {
	case classifier.DecisionAutoMatch, classifier.DecisionExplicit:
		rc := c
		rc.IdempotencyKey, rc.RuleID, rc.Decision, rc.Candidates, rc.Polarity = "", cl.RuleID, cl.Decision, cl.Candidates, cl.Polarity
		if rc.Stated == "" && cl.Decision == classifier.DecisionExplicit && c.RuleID == "" {
			rc.Stated = engine.StatedExplicit
		}
		score := cl.Score
		rc.Score = &score
		if cl.Decision == classifier.DecisionAutoMatch {
			rc.Model = cl.Model
		}
		res, promoted, err := ApplyCorrection(tx, rc)
		if err != nil {
			return err
		}
		resp.RecordResult, resp.Promoted = &res, promoted
	case classifier.DecisionConfirm:
		id, err := tx.CreatePending(engine.Pending{Text: c.UserText, Instruction: c.Instruction, Scope: c.Scope, Polarity: cl.Polarity, FrameID: c.FrameID,
			AgentOutput: c.AgentOutput, Candidates: cl.Candidates, Model: cl.Model, CreatedAt: c.At})
		if err != nil {
			return err
		}
		resp.PendingID = id
	case classifier.DecisionNewRule:
		if !cl.Learnable() {
			resp.Reason = classifier.JoinReasons(resp.Reason, cl.UnlearnableReason())
			return nil
		}
		score := cl.Score
		ev := engine.Event{UserText: c.UserText, AgentOutput: c.AgentOutput, FrameID: c.FrameID, Scope: c.Scope,
			Decision: cl.Decision, Score: &score, Candidates: cl.Candidates, Model: cl.Model, At: c.At,
			Detail: classifier.JoinReasons("proposed from a correction that matched no rule", c.Detail)}
		res, rule, err := insertCandidate(tx, *cl.Proposal, classifiedText(c), c.Scope, ev, c.At)
		if err != nil {
			return err
		}
		resp.RecordResult, resp.CreatedRule = &res, &rule
	}
	return nil
}

// recordKey is what a correction's idempotency key stands for: everything
// but the time and the key, after normalisation and redaction.
type recordKey struct {
	Text        string          `json:"text"`
	RuleID      string          `json:"rule_id,omitempty"`
	Polarity    engine.Polarity `json:"polarity"`
	Scope       engine.Scope    `json:"scope"`
	FrameID     string          `json:"frame_id,omitempty"`
	AgentOutput string          `json:"agent_output,omitempty"`
	Instruction string          `json:"instruction,omitempty"`
}

// fingerprint is the hex sha256 of c's recordKey as JSON: the request
// fingerprint stored with an idempotency key.
func fingerprint(c engine.Correction) (string, error) {
	b, err := json.Marshal(struct {
		Op  string    `json:"op"`
		Req recordKey `json:"req"`
	}{"record", recordKey{c.UserText, c.RuleID, c.Polarity, c.Scope, c.FrameID, c.AgentOutput, c.Instruction}})
	if err != nil {
		return "", fmt.Errorf("fingerprint of a correction: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
