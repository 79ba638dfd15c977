package memory

import (
	"testing"
	"time"

	"github.com/lexsona/lexsona/store"
)

// TestCountRuleStates: every state is counted, 0 when no rule is in it;
// the counts add up to the store's rules, a rule added among them and one
// archived among the archived.
func TestCountRuleStates(t *testing.T) {
	s, db := MustDefaultService(t, Options{})
	ctx := t.Context()
	count := func() (map[string]int, int) {
		t.Helper()
		c, err := s.CountRuleStates(ctx, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, st := range RuleStates {
			n, ok := c[st]
			if !ok {
				t.Errorf("state %s missing from %v", st, c)
			}
			total += n
		}
		if len(c) != len(RuleStates) {
			t.Errorf("states %v, want those of RuleStates only", c)
		}
		return c, total
	}
	before, total := count()
	rules, err := db.ListRules(ctx, store.RuleFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if total != len(rules) || before["archived"] != 0 {
		t.Errorf("%v: %d rules counted, the store holds %d, none archived", before, total, len(rules))
	}
	if _, err := s.AddRule(ctx, NewRule{RuleID: "user.count-me", Category: "code_style", Text: "Use tabs"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ArchiveRule(ctx, "tool.no-sed-for-file-editing", time.Time{}); err != nil {
		t.Fatal(err)
	}
	after, total2 := count()
	if total2 != total+1 || after["archived"] != 1 {
		t.Errorf("after adding a rule and archiving another: %v (%d rules), want %d rules, 1 archived", after, total2, total+1)
	}
}
