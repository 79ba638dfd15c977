package store

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// AcceptCandidate makes candidate rule id active-eligible. An exception
// proposal is accepted with AcceptException, which also excludes its tag from
// the rule it is an exception to. It returns the accepted rule. Errors:
// ENOTFOUND for an unknown rule; EINVALID for a malformed id; ECONFLICT for a
// rule that is not a candidate (accepted or rejected already, or never
// proposed), as for a confirmation resolved twice; AcceptException's.
func (db *DB) AcceptCandidate(ctx context.Context, id string, at time.Time) (engine.Rule, error) {
	r, err := db.candidate(ctx, id, "accept")
	if err != nil {
		return r, err
	}
	if r.ExceptionOf != "" {
		_, exc, err := db.AcceptException(ctx, r.RuleID, at)
		return exc, err
	}
	s := engine.StatusActiveEligible
	return db.UpdateRule(ctx, r.RuleID, RuleUpdate{Status: &s}, at)
}

// RejectCandidate archives candidate rule id. An exception proposal is
// rejected with RejectException: it is archived, the rule it was an exception
// to stays as it was, and the same exception is never proposed again. It
// returns the rule afterwards. Errors: as AcceptCandidate's.
func (db *DB) RejectCandidate(ctx context.Context, id string, at time.Time) (engine.Rule, error) {
	r, err := db.candidate(ctx, id, "reject")
	if err != nil {
		return r, err
	}
	if r.ExceptionOf != "" {
		if err := db.RejectException(ctx, r.RuleID, at); err != nil {
			return r, err
		}
		return db.GetRule(ctx, r.RuleID)
	}
	return db.ArchiveRule(ctx, r.RuleID, at)
}

// candidate returns rule id, or an ECONFLICT error naming its status unless
// it is a candidate (verb says what the caller wanted to do with it).
func (db *DB) candidate(ctx context.Context, id, verb string) (engine.Rule, error) {
	r, err := db.GetRule(ctx, id)
	if err == nil && r.Status != engine.StatusCandidate {
		err = engine.Errorf(engine.ECONFLICT, "rule %s is %s, not a candidate: there is nothing to %s (it was reviewed already, or never proposed)",
			r.RuleID, r.Status, verb)
	}
	return r, err
}
