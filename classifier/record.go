package classifier

import (
	"context"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/redact"
	"github.com/lexsona/lexsona/store"
)

// RecordRequest is a correction to classify and record.
type RecordRequest struct {
	Text string `json:"text"`
	// RuleID, when set, names the rule (decision explicit, no embedding); a
	// CORRECT[rule_id]: prefix in Text does the same.
	RuleID string `json:"rule_id,omitempty"`
	// Polarity is −1 when the caller says the correction is a counterexample
	// (it then is one, whatever its wording); 1 or 0 leave it to the
	// classifier, which records a reinforcement unless it finds that the text
	// contradicts the rule (see PolarityCheck). An explicit rule (RuleID,
	// CORRECT[...]) gets a reinforcement unless Polarity is −1.
	Polarity    engine.Polarity `json:"polarity"`
	Scope       engine.Scope    `json:"scope"`
	FrameID     string          `json:"frame_id,omitempty"`
	AgentOutput string          `json:"agent_output,omitempty"`
	// At is when the correction was made; zero means now.
	At time.Time `json:"at"`
	// IdempotencyKey makes a retry return the first response and write nothing.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// RecordResponse is what Record did. The store's record result (event_id,
// rule_id, event_type, alpha, beta, confidence, active, exception_proposal) is
// there for auto_match and explicit (the reinforcement or counterexample) and
// for new_rule (the candidate's creation event, plus created_rule); it is
// absent for confirm, which stores a pending confirmation (pending_id) and
// nothing else. A generic text ("that's wrong", "nope, try again") or a
// counterexample that matches no rule is new_rule with nothing stored at all
// (Stored is false): no rule can be learned from it, and its reason says so.
type RecordResponse struct {
	*store.RecordResult
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
}

// Stored reports whether Record wrote anything: evidence, a pending
// confirmation or a candidate rule.
func (r RecordResponse) Stored() bool { return r.RecordResult != nil || r.PendingID != 0 }

// unlearnable reports whether cl is a new_rule from which no rule can be
// proposed: a text the guard found generic (no informative word), or a
// counterexample (a candidate would turn it into a reinforcement of what it
// takes back).
func unlearnable(cl *classified) bool {
	return cl.Decision == DecisionNewRule && (strings.HasPrefix(cl.Reason, ReasonGeneric) || cl.Polarity == engine.Counter)
}

// unlearnableReason is what Record adds to the reason of an unlearnable cl.
func unlearnableReason(cl *classified) string {
	if strings.HasPrefix(cl.Reason, ReasonGeneric) {
		return "nothing was recorded: no rule can be learned from it (ask the user what was wrong)"
	}
	return "nothing was recorded: the counterexample matches no rule, so there is no rule to count it against"
}

// Record classifies a correction and acts on the decision in one write
// transaction:
//   - auto_match and explicit: a reinforcement on the rule, or a
//     counterexample when the request's polarity is −1 or (auto_match) the
//     classifier found that the text contradicts the rule; the event carries
//     the text, decision, score, candidates and model;
//   - confirm: a pending confirmation (text, scope, polarity — −1 for a
//     contradiction, so accepting it records a counterexample — frame, agent
//     output, candidates, model), nothing else;
//   - new_rule: nothing for a generic text or a counterexample (see
//     RecordResponse); otherwise a candidate rule (engine.NewCandidateRule: alpha prior+1, beta
//     prior, id proposed.<slug>-<hash>, suffixed -2…-9 when taken; scoped to
//     the request's environment, project and agent family) with its creation
//     event, and the vector already computed stored as its template's
//     embedding, so the same correction matches it next time.
//
// With an idempotency key the whole operation is idempotent: a retry with the
// same request (At aside) returns the first response with replayed=true and
// writes nothing, checked before classifying and again in the transaction.
// Errors: Classify's, plus EINVALID for a bad polarity, frame id, agent output
// or key, or an archived rule; ENOTFOUND for an unknown RuleID; ECONFLICT when
// the key was used for another request. On error nothing is written.
func (c *Classifier) Record(ctx context.Context, req RecordRequest) (RecordResponse, bool, error) {
	var resp RecordResponse
	if c.err != nil {
		return resp, false, c.err
	}
	pol, err := engine.ParsePolarity(int(req.Polarity))
	if err != nil {
		return resp, false, err
	}
	req.Polarity = pol
	if req.At.IsZero() {
		req.At = time.Now()
	}
	req.At = req.At.UTC()
	corr := engine.Correction{RuleID: req.RuleID, Polarity: pol, UserText: req.Text, AgentOutput: req.AgentOutput,
		FrameID: req.FrameID, Scope: req.Scope, At: req.At, IdempotencyKey: req.IdempotencyKey}
	if err := corr.Validate(); err != nil {
		return resp, false, err
	}
	if err := validateText(req.Text); err != nil {
		return resp, false, err
	}
	redacted := redact.Strings(&req.Text, &req.AgentOutput)
	corr.UserText, corr.AgentOutput = req.Text, req.AgentOutput
	req.Scope = corr.Scope
	sum, err := requestSHA(req)
	if err != nil {
		return resp, false, err
	}
	if replayed, err := c.lookup(ctx, req.IdempotencyKey, sum, &resp); err != nil || replayed {
		return resp, replayed, err
	}
	cl, err := c.classify(ctx, req.Text, req.Scope, req.RuleID, pol == engine.Counter)
	if err != nil {
		return RecordResponse{}, false, err
	}
	corr.Polarity = cl.Polarity
	var prop proposal
	if cl.Decision == DecisionNewRule && !unlearnable(&cl) {
		if prop, err = c.propose(ctx, req.Text, &cl); err != nil {
			return RecordResponse{}, false, err
		}
	}
	replayed := false
	err = c.db.Write(ctx, func(tx *store.Tx) error {
		if req.IdempotencyKey != "" {
			resp = RecordResponse{}
			found, err := tx.LookupIdempotency(req.IdempotencyKey, sum, &resp)
			if err != nil || found {
				replayed = found
				return err
			}
		}
		resp = RecordResponse{Decision: cl.Decision, Score: cl.Score, Polarity: cl.Polarity, Candidates: cl.Candidates, Reason: cl.Reason, Redacted: redacted}
		switch cl.Decision {
		case DecisionAutoMatch, DecisionExplicit:
			rc := corr
			rc.IdempotencyKey, rc.RuleID, rc.Decision, rc.Candidates = "", cl.RuleID, cl.Decision, cl.Candidates
			score := cl.Score
			rc.Score = &score
			if cl.Decision == DecisionAutoMatch {
				rc.Model = cl.Model
			}
			cfg, err := tx.Config()
			if err != nil {
				return err
			}
			res, err := tx.ApplyCorrection(rc, cfg)
			if err != nil {
				return err
			}
			resp.RecordResult = &res
		case DecisionConfirm:
			id, err := tx.CreatePending(engine.Pending{Text: req.Text, Scope: req.Scope, Polarity: cl.Polarity, FrameID: req.FrameID,
				AgentOutput: req.AgentOutput, Candidates: cl.Candidates, Model: cl.Model, CreatedAt: req.At})
			if err != nil {
				return err
			}
			resp.PendingID = id
		case DecisionNewRule:
			if unlearnable(&cl) {
				resp.Reason = joinReasons(resp.Reason, unlearnableReason(&cl))
				break
			}
			score := cl.Score
			ev := engine.Event{UserText: req.Text, AgentOutput: req.AgentOutput, FrameID: req.FrameID, Scope: req.Scope,
				Decision: cl.Decision, Score: &score, Candidates: cl.Candidates, Model: cl.Model, At: req.At,
				Detail: "proposed from a correction that matched no rule"}
			res, rule, err := c.insertCandidate(tx, prop, req.Text, req.Scope, ev, req.At)
			if err != nil {
				return err
			}
			resp.RecordResult, resp.CreatedRule = &res, &rule
		}
		if req.IdempotencyKey != "" {
			return tx.SaveIdempotency(req.IdempotencyKey, sum, resp)
		}
		return nil
	})
	if err != nil {
		return RecordResponse{}, false, err
	}
	return resp, replayed, nil
}

// requestSHA fingerprints a request for its idempotency key: everything but
// the time and the key, after normalisation.
func requestSHA(req RecordRequest) (string, error) {
	req.At, req.IdempotencyKey = time.Time{}, ""
	return store.RequestSHA256(struct {
		Op  string        `json:"op"`
		Req RecordRequest `json:"req"`
	}{"classifier.record", req})
}

// lookup replays a stored response for key (false when key is empty or
// unknown). Errors: ECONFLICT when key was used for another request.
func (c *Classifier) lookup(ctx context.Context, key, sum string, out *RecordResponse) (bool, error) {
	if key == "" {
		return false, nil
	}
	found := false
	err := c.db.Write(ctx, func(tx *store.Tx) error {
		var err error
		found, err = tx.LookupIdempotency(key, sum, out)
		return err
	})
	return found, err
}
