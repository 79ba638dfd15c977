package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// The review of proposed rules: a candidate learned from corrections, or an
// exception proposed when a rule's counterexamples share a context tag, is
// accepted (it becomes active-eligible) or rejected (archived), each in one
// write transaction with its manual_override events.

// AcceptCandidate makes candidate rule id active-eligible. An exception
// proposal is accepted with AcceptException, which also excludes its tag from
// the rule it is an exception to. It returns the accepted rule. Errors:
// ENOTFOUND for an unknown rule; EINVALID for a malformed id; ECONFLICT for a
// rule that is not a candidate (accepted or rejected already, or never
// proposed), as for a confirmation resolved twice; AcceptException's.
func AcceptCandidate(ctx context.Context, db *store.DB, id string, at time.Time) (engine.Rule, error) {
	r, err := candidate(ctx, db, id, "accept")
	if err != nil {
		return r, err
	}
	if r.ExceptionOf != "" {
		_, exc, err := AcceptException(ctx, db, r.RuleID, at)
		return exc, err
	}
	s := engine.StatusActiveEligible
	return UpdateRule(ctx, db, r.RuleID, RuleUpdate{Status: &s, Stated: engine.StatedCandidateAccept}, at)
}

// RejectCandidate archives candidate rule id. An exception proposal is
// rejected with RejectException: it is archived, the rule it was an exception
// to stays as it was, and the same exception is never proposed again. It
// returns the rule afterwards. Errors: as AcceptCandidate's.
func RejectCandidate(ctx context.Context, db *store.DB, id string, at time.Time) (engine.Rule, error) {
	r, err := candidate(ctx, db, id, "reject")
	if err != nil {
		return r, err
	}
	if r.ExceptionOf != "" {
		if err := RejectException(ctx, db, r.RuleID, at); err != nil {
			return r, err
		}
		return db.GetRule(ctx, r.RuleID)
	}
	return ArchiveRule(ctx, db, r.RuleID, at)
}

// candidate returns rule id, or an ECONFLICT error naming its status unless
// it is a candidate (verb says what the caller wanted to do with it).
func candidate(ctx context.Context, db *store.DB, id, verb string) (engine.Rule, error) {
	r, err := db.GetRule(ctx, id)
	if err == nil && r.Status != engine.StatusCandidate {
		err = engine.Errorf(engine.ECONFLICT, "rule %s is %s, not a candidate: there is nothing to %s (it was reviewed already, or never proposed)",
			r.RuleID, r.Status, verb)
	}
	return r, err
}

// exceptionOf loads an exception proposal and checks that it is one.
func exceptionOf(tx *store.Tx, id string) (engine.Rule, error) {
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
func AcceptException(ctx context.Context, db *store.DB, exceptionID string, at time.Time) (parent, exc engine.Rule, err error) {
	at = atOrNow(at)
	err = db.Write(ctx, at, func(tx *store.Tx) error {
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
		return tx.DeleteRejection(parent.RuleID, exc.ExceptionTag)
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
func RejectException(ctx context.Context, db *store.DB, exceptionID string, at time.Time) error {
	at = atOrNow(at)
	return db.Write(ctx, at, func(tx *store.Tx) error {
		exc, err := exceptionOf(tx, exceptionID)
		if err != nil {
			return err
		}
		if err := tx.PutRejection(exc.ExceptionOf, exc.ExceptionTag, at); err != nil {
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

// atOrNow returns at, or now when at is zero, in UTC.
func atOrNow(at time.Time) time.Time {
	if at.IsZero() {
		return time.Now().UTC()
	}
	return at.UTC()
}
