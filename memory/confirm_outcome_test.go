package memory

import (
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store/storetest"
)

// TestConfirmReportsOutcome: the user's first accept of a confirmation on
// a rule states it, so it says the rule became active (and a candidate
// promoted) on that accept; no later accept says so.
func TestConfirmReportsOutcome(t *testing.T) {
	const text = "always wrap quokka handlers in a retry budget"
	tests := []struct {
		name      string
		candidate bool
	}{{"registry rule", false}, {"candidate", true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, db := MustDefaultService(t, Options{})
			at := time.Now().UTC().Add(-time.Hour)
			id := "tool.use-ripgrep"
			if tt.candidate {
				first := MustRecord(t, s, engine.Correction{UserText: text, At: at})
				if first.CreatedRule == nil {
					t.Fatalf("first correction: %+v, want a candidate", first)
				}
				id = first.CreatedRule.RuleID
			}
			activatedAt, promotedAt := 0, 0
			for i := 1; i <= 30; i++ {
				res, err := s.Confirm(t.Context(), storetest.MustCreatePending(t, db, text), ActionAccept, id, 0, at.Add(time.Duration(i)*time.Minute))
				if err != nil {
					t.Fatal(err)
				}
				if res.Activated {
					if activatedAt != 0 || !res.Active {
						t.Fatalf("accept %d: activated %+v (again, after %d, or while not active)", i, res.RecordResult, activatedAt)
					}
					activatedAt = i
				} else if res.Active && activatedAt == 0 {
					t.Fatalf("accept %d: active without saying it was activated", i)
				}
				if res.Promoted {
					if promotedAt != 0 {
						t.Fatalf("promoted twice (accepts %d and %d)", promotedAt, i)
					}
					promotedAt = i
				}
			}
			if activatedAt == 0 {
				t.Fatalf("never activated in 30 confirmations (rule %+v)", mustRule(t, db, id))
			}
			if activatedAt != 1 {
				t.Errorf("activated at accept %d, want 1: an accept states its rule", activatedAt)
			}
			if want := map[bool]int{true: activatedAt, false: 0}[tt.candidate]; promotedAt != want {
				t.Errorf("promoted at accept %d, want %d (activated at %d)", promotedAt, want, activatedAt)
			}
			t.Logf("activated at accept %d", activatedAt)
		})
	}
}
