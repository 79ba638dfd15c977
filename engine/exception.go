package engine

import (
	"slices"
	"sort"
	"time"
)

// ExceptionProposal is a paired exception rule proposed after a rule collected
// enough counterexamples sharing one context tag: a candidate scoped to that
// tag, which, once accepted, applies there while the parent excludes the tag.
type ExceptionProposal struct {
	ParentID string `json:"parent_id"`
	Tag      string `json:"tag"`
	Count    int    `json:"count"`
	Rule     Rule   `json:"rule"`
}

// ExceptionRuleID is the id of the exception rule that carves tag out of parent.
func ExceptionRuleID(parent, tag string) string {
	slug := make([]rune, 0, len(tag))
	for _, r := range tag {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '-' || r == '_' {
			slug = append(slug, r)
		} else {
			slug = append(slug, '-')
		}
	}
	return parent + ".except-" + string(slug)
}

// DetectExceptionPatternCounts proposes an exception from running counts:
// counts maps a context tag to the number of the rule's counterexamples that
// carried it (a store keeps these incrementally, so recording a counterexample
// never rescans the rule's history). Tags the parent already requires or
// excludes, and tags in skip (proposals made or rejected before), are not
// proposed. Among tags counted at least cfg.ExceptionMinCount times the most
// frequent wins, then the alphabetically first. It returns nil when none qualifies.
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
	tag := tags[0]
	scope := parent.Scope
	scope.ContextTags = normTags(append(slices.Clone(parent.Scope.ContextTags), tag))
	scope.ExcludeTags = nil
	r := NewRule(ExceptionRuleID(parent.RuleID, tag), parent.Category, parent.Severity,
		"Exception to ["+parent.RuleID+"] in "+tag+" contexts: the rule \""+OneLine(parent.Text)+"\" does not apply there.",
		scope, cfg, now)
	// The counterexamples that revealed the pattern are the exception's own evidence.
	r.Alpha += float64(counts[tag])
	r.Reinforcements = counts[tag]
	r.Status = StatusCandidate
	r.ExceptionOf = parent.RuleID
	r.ExceptionTag = tag
	r.Topic = parent.Topic
	return &ExceptionProposal{ParentID: parent.RuleID, Tag: tag, Count: counts[tag], Rule: r}
}

// AcceptException applies an accepted exception: the parent gains the tag in
// its exclude_tags and the exception becomes active-eligible. It returns an
// EINVALID error when exc is not an exception proposal of parent, ECONFLICT
// when it is no longer a candidate (accepted or rejected already).
func AcceptException(parent, exc *Rule) error {
	if exc.ExceptionOf != parent.RuleID || exc.ExceptionTag == "" {
		return Errorf(EINVALID, "rule %s is not an exception proposal of %s", exc.RuleID, parent.RuleID)
	}
	if exc.Status != StatusCandidate {
		return Errorf(ECONFLICT, "exception %s is %s, not a candidate: it was reviewed already", exc.RuleID, exc.Status)
	}
	parent.Scope.ExcludeTags = normTags(append(slices.Clone(parent.Scope.ExcludeTags), exc.ExceptionTag))
	exc.Status = StatusActiveEligible
	return nil
}
