package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// fileAs completes as for candidate r, which the user accepts: a candidate
// that still has its proposed.* id gets a real one (engine.FiledRuleID, in
// its category), and one still uncategorized gets the category of its
// nearest rule — the best-scoring rule of the registry that is neither a
// candidate nor r itself — else engine.CategoryUncategorized stays. What
// the user gave in as is kept. Errors: the classifier's and the store's.
func (s *Service) fileAs(ctx context.Context, r engine.Rule, as AcceptAs) (AcceptAs, error) {
	if r.ExceptionOf != "" {
		return as, nil
	}
	if as.Category == "" && r.Category == engine.CategoryUncategorized {
		cat, err := s.nearestCategory(ctx, r)
		if err != nil {
			return as, err
		}
		as.Category = cat
	}
	if as.RuleID != "" || !strings.HasPrefix(r.RuleID, "proposed.") {
		return as, nil
	}
	base := engine.FiledRuleID(r.Text, cmpOr(as.Category, r.Category))
	id := base
	for i := 2; ; i++ {
		_, err := s.db.GetRule(ctx, id)
		if engine.ErrorCode(err) == engine.ENOTFOUND {
			break
		}
		if err != nil {
			return as, err
		}
		if i > 9 {
			return as, engine.Errorf(engine.ECONFLICT, "rule %s and its variants -2 to -9 exist: accept %s under an id of your own", base, r.RuleID)
		}
		id = fmt.Sprintf("%s-%d", base, i)
	}
	as.RuleID = id
	return as, nil
}

// nearestCategory is the category of the rule that scores best for r's
// text among the rules that are neither candidates nor r, "" when none
// scores above the classifier's candidate floor.
func (s *Service) nearestCategory(ctx context.Context, r engine.Rule) (string, error) {
	res, err := s.clf.Classify(ctx, r.Text, engine.Scope{})
	if err != nil {
		return "", err
	}
	for _, c := range res.Candidates {
		if c.RuleID == r.RuleID || strings.HasPrefix(c.RuleID, "proposed.") {
			continue
		}
		near, err := s.db.GetRule(ctx, c.RuleID)
		if engine.ErrorCode(err) == engine.ENOTFOUND {
			continue
		}
		if err != nil {
			return "", err
		}
		if near.Status == engine.StatusCandidate || near.Category == engine.CategoryUncategorized {
			continue
		}
		return near.Category, nil
	}
	return "", nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
