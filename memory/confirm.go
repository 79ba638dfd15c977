package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Confirmation actions.
const (
	ActionAccept = "accept" // evidence on the top candidate, or on the rule named
	ActionReject = "reject" // close it, record nothing
	ActionNew    = "new"    // propose a candidate rule from its text
)

// ConfirmResult is what resolving a confirmation did. The store's record
// result (event_id, rule_id, event_type, alpha, beta, confidence, active) is
// there for accept (a confirmation event) and new (the candidate's creation
// event, plus created_rule); reject has only pending_id and status.
type ConfirmResult struct {
	*RecordResult
	PendingID   int64        `json:"pending_id"`
	Status      string       `json:"status"` // accepted, rejected or new_rule
	CreatedRule *engine.Rule `json:"created_rule,omitempty"`
	// Promoted is set when the accepted evidence carried a candidate rule
	// past its thresholds, making it active-eligible (candidates.auto_promote).
	Promoted bool `json:"promoted,omitempty"`
	// Activated is set when the accepted evidence made the rule active: it
	// was not in personas before the confirmation and is now.
	Activated bool `json:"activated,omitempty"`
}

// Confirm resolves pending confirmation id in one write transaction:
//   - accept: applies the pending polarity's evidence (reinforcement or
//     counterexample) to ruleID, or to the top candidate when ruleID is
//     empty, and appends a `confirmation` event carrying the text, scope,
//     candidates, model and the rule's score among the candidates; its
//     detail says which polarity it was. The user's accept is an explicit
//     act: a reinforcement puts the rule in force at once (Rule.State), a
//     counterexample withdraws its statement;
//   - reject: marks it rejected, nothing else;
//   - new: proposes a candidate rule from its text, as Record's new_rule;
//     refused for a counterexample (polarity −1), which has nothing to
//     propose.
//
// pol, when not 0, is the direction the user gives the confirmation: 1
// (the text supports the rule: a reinforcement) or −1 (it contradicts the
// rule: a counterexample), whatever the classifier read; 0 keeps the
// pending one, refused for a suggestion whose direction is unsure
// (engine.Pending.DirectionUnsure). A pending contradiction flipped to 1
// may then propose a new rule.
//
// A zero at means now. Errors: EINVALID for an unknown action, a ruleID with
// reject or new, new on a counterexample, a malformed ruleID, an accept with
// neither candidates nor ruleID, an accept or new of a suggestion whose
// direction is unsure without a polarity; ECONFLICT for an archived rule,
// or a confirmation that is already resolved (the message names its id and
// status); ENOTFOUND for an unknown
// confirmation or rule. On error nothing is written.
func (s *Service) Confirm(ctx context.Context, id int64, action, ruleID string, pol engine.Polarity, at time.Time) (ConfirmResult, error) {
	var out ConfirmResult
	if pol != 0 && pol.Check() != nil {
		return out, engine.Errorf(engine.EINVALID, "confirmation polarity %d: want 1 (supports the rule), -1 (contradicts it) or 0 (as pending)", pol)
	}
	if pol != 0 && action == ActionReject {
		return out, engine.Errorf(engine.EINVALID, "a polarity can only be given when accepting a confirmation or proposing a rule from it")
	}
	switch action {
	case ActionAccept:
		if ruleID != "" {
			if err := engine.ValidateRuleID(ruleID); err != nil {
				return out, err
			}
		}
	case ActionReject, ActionNew:
		if ruleID != "" {
			return out, engine.Errorf(engine.EINVALID, "a rule (%s) can only be named when accepting a confirmation", ruleID)
		}
	default:
		return out, engine.Errorf(engine.EINVALID, "confirmation action %q: want accept, reject or new", action)
	}
	at = s.at(at)
	p, err := s.db.GetPending(ctx, id)
	if err != nil {
		return out, err
	}
	if err := stillOpen(p); err != nil {
		return out, err
	}
	if pol == 0 && p.DirectionUnsure && action != ActionReject {
		return out, engine.Errorf(engine.EINVALID, "confirmation %d: the readings of its words disagree on their direction: give a polarity (1: they support the rule, -1: they contradict it)", id)
	}
	if pol != 0 {
		p.Polarity = pol
	}
	if err := proposable(p, action); err != nil {
		return out, err
	}
	var prop classifier.TextVectors
	if action == ActionNew {
		if prop, err = s.clf.Vectors(ctx, classifier.CandidateText(proposalText(p)), nil); err != nil {
			return out, err
		}
	}
	err = s.db.Write(ctx, s.Now(), func(tx *store.Tx) error {
		out = ConfirmResult{PendingID: id}
		p, err := tx.GetPending(id) // again: it may have been resolved meanwhile
		if err != nil {
			return err
		}
		if err := stillOpen(p); err != nil {
			return err
		}
		if pol != 0 {
			p.Polarity = pol
		}
		switch action {
		case ActionAccept:
			out.Status = engine.PendingAccepted
			res, err := accept(tx, p, ruleID, at, &out)
			if err != nil {
				return err
			}
			out.RecordResult = &res
		case ActionReject:
			out.Status = engine.PendingRejected
		case ActionNew:
			out.Status = engine.PendingNewRule
			ev := engine.Event{UserText: p.Text, AgentOutput: p.AgentOutput, FrameID: p.FrameID, Scope: p.Scope,
				Decision: classifier.DecisionConfirm, Candidates: p.Candidates, Model: p.Model, At: at,
				Detail: classifier.JoinReasons(fmt.Sprintf("proposed from confirmation %d", id), reportedAs(p.Instruction))}
			res, rule, err := insertCandidate(tx, prop, proposalText(p), p.Scope, ev, at)
			if err != nil {
				return err
			}
			out.RecordResult, out.CreatedRule = &res, &rule
		}
		resolvedTo := ""
		if out.RecordResult != nil {
			resolvedTo = out.RecordResult.RuleID
		}
		return tx.ResolvePending(id, out.Status, resolvedTo, at)
	})
	if err != nil {
		return ConfirmResult{}, err
	}
	if out.Status == engine.PendingAccepted {
		learnedOf(s.db).forget() // the accepted text is an exemplar from the next classification on
	}
	return out, nil
}

// proposable refuses to resolve a pending counterexample as a new rule: the
// candidate would record what the correction takes back as a reinforcement.
// It returns an EINVALID error saying what to do instead.
func proposable(p engine.Pending, action string) error {
	if action == ActionNew && p.Polarity == engine.Counter {
		return engine.Errorf(engine.EINVALID, "confirmation %d is a counterexample: it takes a rule back and cannot propose a new one; accept it against the rule it contradicts, or reject it", p.ID)
	}
	return nil
}

// stillOpen returns an ECONFLICT error naming p unless it is still pending.
func stillOpen(p engine.Pending) error {
	if p.Status != engine.PendingOpen {
		return engine.Errorf(engine.ECONFLICT, "confirmation %d is already resolved (%s)", p.ID, p.Status)
	}
	return nil
}

// accept applies p's evidence to ruleID (or its top candidate; either
// followed to the rule it was renamed or merged into since) with a
// confirmation event, setting out's Promoted and Activated.
func accept(tx *store.Tx, p engine.Pending, ruleID string, at time.Time, out *ConfirmResult) (RecordResult, error) {
	if ruleID == "" {
		if len(p.Candidates) == 0 {
			return RecordResult{}, engine.Errorf(engine.EINVALID, "confirmation %d has no candidate: name the rule to accept, or use new", p.ID)
		}
		ruleID = p.Candidates[0].RuleID
	}
	named := ruleID // as the candidates name it
	ruleID, err := renamedRule(tx, ruleID)
	if err != nil {
		return RecordResult{}, err
	}
	wasActive, err := activeAt(tx, ruleID, at)
	if err != nil {
		return RecordResult{}, err
	}
	pol := p.Polarity
	if pol != engine.Counter {
		pol = engine.Reinforce
	}
	var score *float64
	for _, cand := range p.Candidates {
		if cand.RuleID == named {
			s := cand.Score
			score = &s
			break
		}
	}
	res, promoted, err := ApplyCorrection(tx, engine.Correction{
		RuleID: ruleID, Polarity: pol, UserText: p.Text, AgentOutput: p.AgentOutput, FrameID: p.FrameID,
		Scope: p.Scope, At: at, Decision: classifier.DecisionConfirm, Score: score, Candidates: p.Candidates, Model: p.Model,
		Confirmation: true, Detail: classifier.JoinReasons(fmt.Sprintf("%s accepted from confirmation %d", pol.EventType(), p.ID), reportedAs(p.Instruction)),
		Stated: engine.StatedSuggestion,
	})
	out.Promoted, out.Activated = promoted, res.Active && !wasActive
	return res, err
}

// activeAt reports whether rule id is active at time at (engine.Assess).
// Errors: the store's (ENOTFOUND for an unknown rule).
func activeAt(tx *store.Tx, id string, at time.Time) (bool, error) {
	cfg, err := tx.Config()
	if err != nil {
		return false, err
	}
	r, err := tx.GetRule(id)
	if err != nil {
		return false, err
	}
	return engine.Assess(&r, cfg, at).Active, nil
}

// ConfirmItem is the outcome of one id of a batch: its result or its error.
type ConfirmItem struct {
	ID     int64          `json:"id"`
	Result *ConfirmResult `json:"result,omitempty"`
	Error  *ItemError     `json:"error,omitempty"`
}

// ItemError is an error of one batch item, as code and caller-safe message.
type ItemError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ConfirmBatch resolves each id with the same action (and ruleID and pol for accept)
// independently, each in its own transaction, and reports each outcome in
// order: one failing id does not stop or undo the others.
func (s *Service) ConfirmBatch(ctx context.Context, ids []int64, action, ruleID string, pol engine.Polarity, at time.Time) []ConfirmItem {
	out := make([]ConfirmItem, len(ids))
	for i, id := range ids {
		out[i].ID = id
		res, err := s.Confirm(ctx, id, action, ruleID, pol, at)
		if err != nil {
			out[i].Error = &ItemError{Code: engine.ErrorCode(err), Message: engine.ErrorMessage(err)}
			continue
		}
		out[i].Result = &res
	}
	return out
}
