package memory

import (
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// TestRecordPromotesCandidate: a correction that matched no rule proposes a
// candidate; repeating it reinforces the candidate until it passes the
// evidence floor and confidence threshold, when it becomes active by itself
// with a promotion event; with candidates.auto_promote off it never does.
func TestRecordPromotesCandidate(t *testing.T) {
	const text = "always wrap quokka handlers in a retry budget"
	for _, tt := range []struct {
		name        string
		autoPromote string
	}{{"on", "true"}, {"off", "false"}} {
		t.Run(tt.name, func(t *testing.T) {
			s, db := MustDefaultService(t, Options{})
			if _, err := s.SetConfig(t.Context(), "candidates.auto_promote", tt.autoPromote); err != nil {
				t.Fatal(err)
			}
			at := time.Now().UTC().Add(-time.Hour)
			first := MustRecord(t, s, engine.Correction{UserText: text, At: at})
			if first.CreatedRule == nil {
				t.Fatalf("first correction: %+v, want a candidate", first)
			}
			id := first.CreatedRule.RuleID
			promotedAt := 0
			for i := 2; i <= 30; i++ {
				resp := MustRecord(t, s, engine.Correction{RuleID: id, UserText: text, At: at.Add(time.Duration(i) * time.Minute)})
				if resp.Promoted {
					if promotedAt != 0 {
						t.Fatalf("promoted twice (corrections %d and %d)", promotedAt, i)
					}
					promotedAt = i
					if !resp.Active {
						t.Errorf("promoted at correction %d but not active: %+v", i, resp.RecordResult)
					}
				}
			}
			r := mustRule(t, db, id)
			if tt.autoPromote == "false" {
				if promotedAt != 0 || r.Status != engine.StatusCandidate {
					t.Fatalf("auto-promote off: promoted at %d, status %s", promotedAt, r.Status)
				}
				return
			}
			if promotedAt == 0 || r.Status != engine.StatusActiveEligible {
				t.Fatalf("never promoted in 30 corrections (status %s)", r.Status)
			}
			h, err := s.History(t.Context(), id, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, e := range h.Events {
				if e.EventType == engine.EventPromotion {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%d promotion events, want 1", n)
			}
			t.Logf("promoted at correction %d", promotedAt)
		})
	}
}

// TestListRulesRefusesUnknownSource: a typo'd source is an error, not an
// empty list.
func TestListRulesRefusesUnknownSource(t *testing.T) {
	s, _ := MustDefaultService(t, Options{})
	_, err := s.ListRules(t.Context(), RulesQuery{Source: "bogus"})
	MustCode(t, err, engine.EINVALID)
}

// TestWhyListsEveryRule: why answers for every stored rule, including
// those scoped elsewhere, with the corrections each still needs.
func TestWhyListsEveryRule(t *testing.T) {
	s, _ := MustDefaultService(t, Options{})
	all, err := s.ListRules(t.Context(), RulesQuery{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Why(t.Context(), engine.Scope{Project: "api"}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Decisions) != len(all.Rules) {
		t.Fatalf("%d decisions for %d rules", len(w.Decisions), len(all.Rules))
	}
	for _, d := range w.Decisions {
		if (d.Outcome == engine.OutcomeInactive || d.Outcome == engine.OutcomeCandidate) && d.Needed == 0 {
			t.Errorf("%s: outcome %s but needs 0 corrections", d.RuleID, d.Outcome)
		}
	}
}
