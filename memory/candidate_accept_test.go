package memory

import (
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

// Accepting a proposed rule may name its id and category; the answer says
// what activation still needs; a taken id or a bad category is refused
// before anything changes.
func TestAcceptCandidateAs(t *testing.T) {
	s, db := MustDefaultService(t, Options{})
	res := MustRecord(t, s, engine.Correction{UserText: "indent the Makefile recipes with tabs, never spaces"})
	if res.CreatedRule == nil {
		t.Fatalf("no candidate proposed: %+v", res)
	}
	id := res.CreatedRule.RuleID
	for _, bad := range []AcceptAs{{RuleID: "tool.use-ripgrep"}, {Category: "Not A Category"}, {RuleID: "Bad Id"}} {
		before := MustCount(t, db)
		if _, err := s.AcceptCandidate(t.Context(), id, bad, t0); err == nil {
			t.Errorf("%+v accepted", bad)
		}
		if after := MustCount(t, db); after != before || mustRule(t, db, id).Status != engine.StatusCandidate {
			t.Errorf("%+v: a refused accept changed the memory", bad)
		}
	}
	got, err := s.AcceptCandidate(t.Context(), id, AcceptAs{RuleID: "style.tabs-in-makefiles", Category: engine.CategoryCodeStyle}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got.RuleID != "style.tabs-in-makefiles" || got.Category != engine.CategoryCodeStyle || got.Status != engine.StatusActiveEligible {
		t.Errorf("accepted as %s %s %s", got.RuleID, got.Category, got.Status)
	}
	if got.CorrectionsNeeded < 1 || !strings.Contains(got.Needs, "more correction") {
		t.Errorf("needs %d: %q", got.CorrectionsNeeded, got.Needs)
	}
}
