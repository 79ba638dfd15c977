package store

import (
	"context"
	"fmt"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// proposeException runs engine.DetectExceptionPatternCounts over the context
// tags of rule's counterexamples (counted by a trigger as they are recorded)
// and inserts the proposed candidate rule with its creation event. Tags
// already proposed for rule (whatever became of the proposal) or rejected are
// skipped. A proposal whose id is taken or invalid (too long) is dropped: it
// must never make the correction fail. Proposals get no rule text, so the
// classifier never matches corrections to them.
func (t *Tx) proposeException(rule *engine.Rule, cfg engine.Config, at time.Time) (*engine.ExceptionProposal, error) {
	counts, err := t.dt.CounterexampleTags(rule.RuleID)
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
	tags, err := t.dt.ExceptionTags(rule.RuleID)
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
	if checkRule(&p.Rule) != nil {
		return nil, nil
	}
	if taken, err := t.dt.RuleExists(p.Rule.RuleID); err != nil || taken {
		return nil, err
	}
	if err := t.insertRuleRow(RuleRow{Rule: p.Rule}); err != nil {
		return nil, err
	}
	ev := engine.Event{
		RuleID: p.Rule.RuleID, EventType: engine.EventCreation, Scope: p.Rule.Scope, Alpha: p.Rule.Alpha, Beta: p.Rule.Beta, At: at,
		Detail: fmt.Sprintf("proposed as an exception to %s: %d of its counterexamples came in %s contexts", rule.RuleID, p.Count, p.Tag),
	}
	if _, err := t.insertEvent(&ev); err != nil {
		return nil, err
	}
	return p, nil
}

// exceptionOf loads an exception proposal and checks that it is one.
func exceptionOf(tx *Tx, id string) (engine.Rule, error) {
	exc, err := tx.GetRule(id)
	if err != nil {
		return exc, err
	}
	if exc.ExceptionOf == "" || exc.ExceptionTag == "" {
		return exc, engine.Errorf(engine.EINVALID, "rule %s is not an exception proposal", id)
	}
	if exc.Status != engine.StatusCandidate {
		return exc, engine.Errorf(engine.ECONFLICT, "exception %s is %s, not a candidate waiting for a decision: it was reviewed already", id, exc.Status)
	}
	return exc, nil
}

// AcceptException accepts a proposed exception in one transaction
// (engine.AcceptException): its parent gains the tag in its exclude_tags, the
// exception becomes active-eligible, and each gets a manual_override event.
// It returns both rules as saved. Errors: EINVALID for a malformed id or a
// rule that is not an exception proposal; ECONFLICT for one that is not a
// candidate any more; ENOTFOUND for an unknown exception or a parent that no
// longer exists.
func (db *DB) AcceptException(ctx context.Context, exceptionID string, at time.Time) (parent, exc engine.Rule, err error) {
	at = nowIfZero(at)
	err = db.Write(ctx, func(tx *Tx) error {
		var err error
		if exc, err = exceptionOf(tx, exceptionID); err != nil {
			return err
		}
		if parent, err = tx.GetRule(exc.ExceptionOf); err != nil {
			return err
		}
		if err := engine.AcceptException(&parent, &exc); err != nil {
			return err
		}
		for _, s := range []struct {
			r      *engine.Rule
			detail string
		}{
			{&parent, fmt.Sprintf("exception %s accepted: %s added to exclude_tags", exc.RuleID, exc.ExceptionTag)},
			{&exc, fmt.Sprintf("accepted as an exception to %s in %s contexts", parent.RuleID, exc.ExceptionTag)},
		} {
			if err := tx.SaveRule(*s.r); err != nil {
				return err
			}
			if _, err := tx.AppendEvent(engine.Event{RuleID: s.r.RuleID, EventType: engine.EventManualOverride,
				Detail: s.detail, Alpha: s.r.Alpha, Beta: s.r.Beta, At: at}); err != nil {
				return err
			}
		}
		return tx.dt.DeleteRejection(parent.RuleID, exc.ExceptionTag)
	})
	if err != nil {
		return engine.Rule{}, engine.Rule{}, err
	}
	return parent, exc, nil
}

// RejectException rejects a proposed exception in one transaction: it
// records (parent, tag) so that the same exception is never proposed again,
// archives the proposal (it no longer waits for a decision) and notes both in
// a manual_override event on it. The parent stays as it was. Errors: as
// AcceptException's (so rejecting it again is ECONFLICT).
func (db *DB) RejectException(ctx context.Context, exceptionID string, at time.Time) error {
	at = nowIfZero(at)
	return db.Write(ctx, func(tx *Tx) error {
		exc, err := exceptionOf(tx, exceptionID)
		if err != nil {
			return err
		}
		if err := tx.dt.PutRejection(exc.ExceptionOf, exc.ExceptionTag, at); err != nil {
			return err
		}
		exc.Status = engine.StatusArchived
		if err := tx.SaveRule(exc); err != nil {
			return err
		}
		_, err = tx.AppendEvent(engine.Event{RuleID: exc.RuleID, EventType: engine.EventManualOverride,
			Detail: fmt.Sprintf("rejected and archived: %s keeps applying in %s contexts", exc.ExceptionOf, exc.ExceptionTag),
			Alpha:  exc.Alpha, Beta: exc.Beta, At: at})
		return err
	})
}
