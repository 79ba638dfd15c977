package engine

import (
	"slices"
	"sort"
	"time"
)

// DetectExceptionPatternCounts is DetectExceptionPattern for callers that keep
// running counts instead of the counterexamples' scopes: counts maps a context
// tag to the number of the rule's counterexamples that carried it. The result
// is the same as DetectExceptionPattern's for scopes with those tag counts.
// A store keeps these counts incrementally, so recording a counterexample
// never rescans the rule's history.
func DetectExceptionPatternCounts(parent *Rule, counts map[string]int, skip map[string]bool, cfg Config, now time.Time) *ExceptionProposal {
	var tags []string
	for t, n := range counts {
		if n < cfg.ExceptionMinCount || skip[t] ||
			slices.Contains(parent.Scope.ContextTags, t) || slices.Contains(parent.Scope.ExcludeTags, t) {
			continue
		}
		tags = append(tags, t)
	}
	if len(tags) == 0 {
		return nil
	}
	sort.Slice(tags, func(i, j int) bool {
		if counts[tags[i]] != counts[tags[j]] {
			return counts[tags[i]] > counts[tags[j]]
		}
		return tags[i] < tags[j]
	})
	// One synthetic counterexample scope per occurrence of the winning tag:
	// DetectExceptionPattern then builds exactly the rule it would have built.
	tag := tags[0]
	scopes := make([]Scope, counts[tag])
	one := []string{tag}
	for i := range scopes {
		scopes[i].ContextTags = one
	}
	return DetectExceptionPattern(parent, scopes, skip, cfg, now)
}
