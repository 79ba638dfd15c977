package memory

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// RuleStates are the rule states a gauge counts (engine.Assessment.State).
var RuleStates = []string{"active", "provisional", "inactive", "candidate", "archived", "dormant", "stale_weak"}

// CountRuleStates counts every rule of the store by its state at now
// (engine.Assess with the stored config): each of RuleStates is present,
// 0 when no rule is in it. It reads every rule, so callers that ask often
// (a metrics scrape) should reuse the answer for a while. Errors: the
// store's.
func (s *Service) CountRuleStates(ctx context.Context, now time.Time) (map[string]int, error) {
	cfg, err := s.db.Config(ctx)
	if err != nil {
		return nil, err
	}
	rules, err := s.db.ListRules(ctx, store.RuleFilter{})
	if err != nil {
		return nil, err
	}
	counts := make(map[string]int, len(RuleStates))
	for _, st := range RuleStates {
		counts[st] = 0
	}
	for i := range rules {
		counts[engine.Assess(&rules[i], cfg, now).State(&rules[i])]++
	}
	return counts, nil
}
