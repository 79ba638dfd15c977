package memory

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// ruleHistory is an export's records of one user rule created at t0 with
// n corrections after it, one a minute (every tenth a counterexample).
func ruleHistory(n int) []exportLine {
	const id = "user.keep-functions-short"
	rule := engine.Rule{RuleID: id, Category: "code_style", Severity: engine.SeverityShould, Text: "Keep functions short",
		Alpha: 2, Beta: 5, FirstSeen: t0, LastCorrection: t0, Status: engine.StatusActiveEligible, Source: engine.SourceUser}
	recs := []exportLine{
		{Kind: "rule", Rule: &rule},
		{Kind: "text", Text: &store.RuleText{RuleID: id, Kind: store.KindTemplate, Text: rule.Text}},
		{Kind: "event", Event: &engine.Event{EventID: 1, RuleID: id, EventType: engine.EventCreation, Detail: "created (source: user)", Alpha: 2, Beta: 5, At: t0}},
	}
	for i := 1; i <= n; i++ {
		ev := engine.Event{EventID: int64(i + 1), RuleID: id, EventType: engine.EventReinforcement, Polarity: engine.Reinforce,
			UserText: fmt.Sprintf("keep them short (%d)", i), At: t0.Add(time.Duration(i) * time.Minute)}
		if i%10 == 0 {
			ev.EventType, ev.Polarity, ev.UserText = engine.EventCounterexample, engine.Counter, fmt.Sprintf("this one may be long (%d)", i)
		}
		rule.ApplyEvidence(ev.Polarity, ev.At)
		ev.Alpha, ev.Beta = rule.Alpha, rule.Beta
		recs = append(recs, exportLine{Kind: "event", Event: &ev})
	}
	return recs
}

// TestImportSharedRule: a file whose rule the memory already has, with
// 139 events where the memory has its first 3, says so for that rule
// (136 of the file's events not imported) and leaves the rule as it was;
// with Merge it appends the 136, recomputes alpha and beta from them
// (their last event and a merge event carry them), and a second merge
// adds nothing.
func TestImportSharedRule(t *testing.T) {
	ctx := context.Background()
	s, db := newService(t, "sqlite")
	if _, err := s.Import(ctx, strings.NewReader(exportOf(t, ruleHistory(2)))); err != nil {
		t.Fatal(err)
	}
	const id = "user.keep-functions-short"
	c, err := CheckExport(strings.NewReader(exportOf(t, ruleHistory(138))), t0.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := s.ImportChecked(ctx, c, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kept := RuleImport{RuleID: id, Outcome: RuleKept, FileEvents: 139, Present: 3, Lacking: 136, NotImported: 136, Events: 3, Alpha: 4, Beta: 5}
	if diff := cmp.Diff([]RuleImport{kept}, res.Rules); diff != "" {
		t.Errorf("default import (-want +got):\n%s", diff)
	}
	if res.Added != (ExportCounts{}) || res.Kept.Events != 139 {
		t.Errorf("added %+v, kept %+v: want nothing added, 139 events kept out", res.Added, res.Kept)
	}
	if h, _ := db.History(ctx, id, 0, 0); len(h) != 3 {
		t.Fatalf("the default import changed the rule's history: %d events, want 3", len(h))
	}

	res, err = s.ImportChecked(ctx, c, ImportOptions{Merge: true})
	if err != nil {
		t.Fatal(err)
	}
	// 138 corrections, every tenth a counterexample: 125 reinforcements, 13 counterexamples.
	merged := RuleImport{RuleID: id, Outcome: RuleMerged, FileEvents: 139, Present: 3, Lacking: 136, Merged: 136, Events: 140, Alpha: 2 + 125, Beta: 5 + 13}
	if diff := cmp.Diff([]RuleImport{merged}, res.Rules); diff != "" {
		t.Errorf("merge (-want +got):\n%s", diff)
	}
	if res.Added.Events != 136 {
		t.Errorf("merge added %d events, want 136", res.Added.Events)
	}
	r, err := db.GetRule(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Alpha != 127 || r.Beta != 18 || r.Reinforcements != 125 || r.CounterExamples != 13 || !r.LastCorrection.Equal(t0.Add(138*time.Minute)) {
		t.Errorf("merged rule %+v: want alpha 127, beta 18, 125 + 13 corrections, last at t0+138m", r)
	}
	h, err := db.History(ctx, id, 0, 1000)
	if err != nil || len(h) != 140 {
		t.Fatalf("history after the merge: %d events, %v; want 140", len(h), err)
	}
	last := h[len(h)-1]
	if last.EventType != engine.EventManualOverride || last.Alpha != 127 || last.Beta != 18 || !strings.Contains(last.Detail, "merged 136 events") {
		t.Errorf("last event %+v: want the merge's manual override with alpha 127, beta 18", last)
	}
	if prev := h[len(h)-2]; prev.Alpha != 127 || prev.Beta != 18 || prev.UserText != "keep them short (138)" {
		t.Errorf("last merged event %+v: want the 138th correction with alpha 127, beta 18", prev)
	}

	again, err := s.ImportChecked(ctx, c, ImportOptions{Merge: true})
	if err != nil {
		t.Fatal(err)
	}
	same := RuleImport{RuleID: id, Outcome: RuleKept, FileEvents: 139, Present: 139, Events: 140, Alpha: 127, Beta: 18}
	if diff := cmp.Diff([]RuleImport{same}, again.Rules); diff != "" {
		t.Errorf("second merge (-want +got):\n%s", diff)
	}
	if h, _ := db.History(ctx, id, 0, 1000); len(h) != 140 {
		t.Errorf("the second merge changed the history: %d events, want 140", len(h))
	}
	if _, err := CheckExport(strings.NewReader(string(mustExport(t, s))), time.Now()); err != nil {
		t.Errorf("the merged memory's export does not import: %v", err)
	}
}
