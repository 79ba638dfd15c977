package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// AcceptAs names what an accepted candidate becomes: RuleID renames it (a
// proposed.* id becomes one of the user's; its history moves with it) and
// Category files it (its thresholds then follow). Empty fields keep what the
// candidate has.
type AcceptAs struct {
	RuleID   string `json:"rule_id,omitempty"`
	Category string `json:"category,omitempty"`
}

// AcceptedRule is an accepted candidate as it is now, and what its
// activation still needs: CorrectionsNeeded more reinforcements (0: it is
// active already; -1: reinforcements alone will not do), said in Needs.
type AcceptedRule struct {
	engine.RuleView
	CorrectionsNeeded int    `json:"corrections_needed"`
	Needs             string `json:"needs"`
}

// AcceptCandidate accepts candidate rule id (or the rule it was renamed
// to) at at (zero: now) as
// ReviewCandidate does — the user's accept states it, so it is in force at
// once — under the id and category as names (a proposed.* id and an
// uncategorized candidate get ones suggested from its nearest rules when
// as leaves them empty: see fileAs), and says what its activation still
// needs. as is checked before anything is written.
// Errors: EINVALID for a malformed id, rule id or category; ENOTFOUND for an
// unknown candidate; ECONFLICT when it is not a candidate or as.RuleID is
// taken.
func (s *Service) AcceptCandidate(ctx context.Context, id string, as AcceptAs, at time.Time) (AcceptedRule, error) {
	if err := engine.ValidateRuleID(id); err != nil {
		return AcceptedRule{}, err
	}
	cand, err := followRename(ctx, s.db, id, func(id string) (engine.Rule, error) { return s.db.GetRule(ctx, id) })
	if err != nil {
		return AcceptedRule{}, err
	}
	id = cand.RuleID
	if cand.Status == engine.StatusCandidate {
		if as, err = s.fileAs(ctx, cand, as); err != nil {
			return AcceptedRule{}, err
		}
	}
	var p RulePatch
	if as.RuleID != "" && as.RuleID != id {
		if err := engine.ValidateRuleID(as.RuleID); err != nil {
			return AcceptedRule{}, err
		}
		if _, err := s.db.GetRule(ctx, as.RuleID); err == nil {
			return AcceptedRule{}, engine.Errorf(engine.ECONFLICT, "rule %s exists already: accept %s under another id", as.RuleID, id)
		} else if engine.ErrorCode(err) != engine.ENOTFOUND {
			return AcceptedRule{}, err
		}
		p.RenameTo = &as.RuleID
	}
	if as.Category != "" {
		if err := engine.ValidateCategory(as.Category); err != nil {
			return AcceptedRule{}, err
		}
		p.Category = &as.Category
	}
	r, err := s.db.GetRule(ctx, id)
	if err != nil {
		return AcceptedRule{}, err
	}
	if r.Status != engine.StatusCandidate {
		return AcceptedRule{}, engine.Errorf(engine.ECONFLICT, "rule %s is %s, not a candidate: there is nothing to accept", id, r.Status)
	}
	at = s.at(at)
	v, err := s.ReviewCandidate(ctx, id, true, at)
	if err != nil {
		return AcceptedRule{}, err
	}
	if p.RenameTo != nil || p.Category != nil {
		if v, err = s.EditRule(ctx, id, p, at); err != nil {
			return AcceptedRule{}, err
		}
	}
	cfg, err := s.db.Config(ctx)
	if err != nil {
		return AcceptedRule{}, err
	}
	n := engine.CorrectionsNeeded(&v.Rule, cfg, at)
	return AcceptedRule{RuleView: v, CorrectionsNeeded: n, Needs: needsText(v, n)}, nil
}

// needsText says what activation still needs.
func needsText(v engine.RuleView, n int) string {
	switch {
	case n == 0:
		return "active now"
	case n == engine.NeededNever:
		return "reinforcements alone will not make it active: check its status and thresholds (lexsona why " + v.RuleID + ")"
	case n == 1:
		return "active after 1 more correction that reinforces it"
	}
	return fmt.Sprintf("active after %d more corrections that reinforce it (category %s: lexsona config shows its evidence floor and confidence threshold)", n, v.Category)
}
