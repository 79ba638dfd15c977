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
	if got.CorrectionsNeeded != 0 || got.Needs != "active now" || got.Stated == nil || got.Stated.By != engine.StatedCandidateAccept {
		t.Errorf("an accepted candidate is not in force at once: needs %d (%q), stated %+v", got.CorrectionsNeeded, got.Needs, got.Stated)
	}
}

// TestAcceptCandidateFiles: a candidate accepted as it is gets a real id,
// not proposed.*, keeping the proposal's slug.
func TestAcceptCandidateFiles(t *testing.T) {
	s, _ := MustDefaultService(t, Options{})
	res := MustRecord(t, s, engine.Correction{UserText: "indent the Makefile recipes with tabs, never spaces"})
	if res.CreatedRule == nil {
		t.Fatalf("no candidate proposed: %+v", res)
	}
	got, err := s.AcceptCandidate(t.Context(), res.CreatedRule.RuleID, AcceptAs{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(got.RuleID, "proposed.") {
		t.Errorf("accepted as %s in %s, want a filed id", got.RuleID, got.Category)
	}
	if !strings.HasSuffix(got.RuleID, strings.TrimPrefix(res.CreatedRule.RuleID, "proposed.")) {
		t.Errorf("id %s does not keep the proposal's slug %s", got.RuleID, res.CreatedRule.RuleID)
	}
}
