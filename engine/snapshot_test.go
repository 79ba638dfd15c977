package engine

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// mustRule builds an active-eligible rule with k reinforcements at last.
func mustRule(tb testing.TB, id, cat string, sev Severity, scope Scope, topic string, k int, last time.Time) Rule {
	tb.Helper()
	r := ruleWith(cat, sev, k, 0, last)
	r.RuleID, r.Scope, r.Topic = id, scope.Normalize(), topic
	r.Text = "Text of " + id
	if err := r.Validate(); err != nil {
		tb.Fatal(err)
	}
	return r
}

func snapshotFixture(tb testing.TB) []Rule {
	return []Rule{
		mustRule(tb, "tool.no-sed", CategoryToolPreference, SeverityMust, Scope{}, "file-editing", 12, t0),
		mustRule(tb, "tool.sed-ok-in-api", CategoryToolPreference, SeverityShould, Scope{Project: "api"}, "file-editing", 6, t0.Add(-24*time.Hour)),
		mustRule(tb, "style.concise", CategoryCommunicationStyle, SeverityShould, Scope{}, "verbosity", 8, t0.Add(-96*time.Hour)),
		mustRule(tb, "style.detailed-logs", CategoryCommunicationStyle, SeverityShould, Scope{Environment: "work", ContextTags: []string{"logs"}}, "verbosity", 8, t0),
		mustRule(tb, "style.no-emoji", CategoryCommunicationStyle, SeverityStyle, Scope{}, "", 6, t0),
		mustRule(tb, "security.no-secrets", CategorySecurityPolicy, SeverityMust, Scope{}, "", 4, t0),          // provisional: n=4, 6/11
		mustRule(tb, "security.too-weak", CategorySecurityPolicy, SeverityMust, Scope{}, "", 2, t0),            // n=2: not even provisional
		mustRule(tb, "code.other-project", CategoryCodeStyle, SeverityMust, Scope{Project: "web"}, "", 9, t0),  // out of scope
		mustRule(tb, "code.old", CategoryCodeStyle, SeverityShould, Scope{}, "", 9, t0.Add(-800*24*time.Hour)), // dormant
	}
}

func TestBuildSnapshotGolden(t *testing.T) {
	req := SnapshotRequest{Scope: Scope{Environment: "work", Project: "api", ContextTags: []string{"logs"}}, Now: t0, Trace: true}
	snap := BuildSnapshot(snapshotFixture(t), req, DefaultConfig())
	var got []string
	for _, r := range snap.Rules {
		got = append(got, r.RuleID)
	}
	// Ordered by specificity, severity, recency, confidence.
	want := []string{"tool.sed-ok-in-api", "style.detailed-logs", "security.no-secrets", "style.no-emoji"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("rules (-want +got)\n%s", d)
	}
	wantLosers := []Loss{
		{RuleID: "tool.no-sed", LostTo: "tool.sed-ok-in-api", Topic: "file-editing", Criterion: CriterionSpecificity, LoserValue: "0", WinnerValue: "2"},
		{RuleID: "style.concise", LostTo: "style.detailed-logs", Topic: "verbosity", Criterion: CriterionSpecificity, LoserValue: "0", WinnerValue: "1.5"},
	}
	if d := cmp.Diff(wantLosers, snap.Losers, cmp.Transformer("sort", sortLosses)); d != "" {
		t.Errorf("losers (-want +got)\n%s", d)
	}
	if !snap.Rules[2].Provisional || snap.Rules[0].Provisional || snap.Rules[1].Provisional {
		t.Errorf("provisional flags wrong: %+v", snap.Rules)
	}
	outcomes := map[string]string{}
	for _, d := range snap.Decisions {
		outcomes[d.RuleID] = d.Outcome
	}
	wantOutcomes := map[string]string{
		"tool.no-sed": OutcomeLost, "tool.sed-ok-in-api": OutcomeIncluded, "style.concise": OutcomeLost,
		"style.detailed-logs": OutcomeIncluded, "style.no-emoji": OutcomeIncluded, "security.no-secrets": OutcomeIncluded,
		"security.too-weak": OutcomeInactive, "code.other-project": OutcomeOutOfScope, "code.old": OutcomeDormant,
	}
	if d := cmp.Diff(wantOutcomes, outcomes); d != "" {
		t.Errorf("decisions (-want +got)\n%s", d)
	}
	compareGolden(t, "snapshot_prompt.golden.md", snap.Prompt)
	if snap.EstimatedTokens != (len(snap.Prompt)+3)/4 {
		t.Errorf("estimated tokens %d", snap.EstimatedTokens)
	}
}

func sortLosses(l []Loss) map[string]Loss {
	m := map[string]Loss{}
	for _, x := range l {
		m[x.RuleID] = x
	}
	return m
}

func TestBuildSnapshotTruncatesAndIncludesDormantOnRequest(t *testing.T) {
	rules := snapshotFixture(t)
	snap := BuildSnapshot(rules, SnapshotRequest{Scope: Scope{Project: "api"}, Now: t0, Max: 2}, DefaultConfig())
	if len(snap.Rules) != 2 || snap.Truncated != 2 {
		t.Fatalf("rules %d truncated %d, want 2 and 2", len(snap.Rules), snap.Truncated)
	}
	cfg := DefaultConfig()
	cfg.Categories[CategoryCodeStyle] = Thresholds{NMin: 3, CMin: 0.6, TauDays: 1e6} // no decay to speak of
	without := BuildSnapshot(rules, SnapshotRequest{Now: t0}, cfg)
	with := BuildSnapshot(rules, SnapshotRequest{Now: t0, IncludeDormant: true}, cfg)
	if has(without, "code.old") || !has(with, "code.old") {
		t.Errorf("dormant rule: without %v, with %v", has(without, "code.old"), has(with, "code.old"))
	}
}

func TestBuildSnapshotEmpty(t *testing.T) {
	snap := BuildSnapshot(nil, SnapshotRequest{Now: t0}, DefaultConfig())
	if len(snap.Rules) != 0 || snap.Rules == nil || snap.Losers == nil {
		t.Fatalf("%+v", snap)
	}
	compareGolden(t, "snapshot_empty.golden.md", snap.Prompt)
}

func has(s Snapshot, id string) bool {
	for _, r := range s.Rules {
		if r.RuleID == id {
			return true
		}
	}
	return false
}

// compareGolden compares got with testdata/name, rewriting it with -update.
func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s (-want +got)\n%s", path, d)
	}
}
