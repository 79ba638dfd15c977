package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// whyFixture is the snapshot fixture plus what a store holds besides the
// rules of one context: candidates, an archived rule, an exception proposal
// and rules scoped elsewhere.
func whyFixture(tb testing.TB) []Rule {
	rules := snapshotFixture(tb)
	cand := func(id, cat string, k int) Rule {
		r := mustRule(tb, id, cat, SeverityShould, Scope{}, "", k, t0)
		r.Status, r.Source = StatusCandidate, SourceCorrection
		return r
	}
	archived := mustRule(tb, "style.rejected", CategoryCommunicationStyle, SeverityShould, Scope{}, "", 9, t0)
	archived.Status = StatusArchived
	exc := cand("tool.no-sed.except-migration", CategoryToolPreference, 3)
	exc.ExceptionOf, exc.ExceptionTag = "tool.no-sed", "migration"
	elsewhere := cand("proposed.elsewhere", "uncategorized", 1)
	elsewhere.Scope = Scope{Environment: "personal"}
	return append(rules,
		cand("proposed.use-pnpm", "uncategorized", 4), // 6/11: 6 more to 12/17
		cand("proposed.passing", "uncategorized", 11), // 13/18 already: its next correction promotes it
		elsewhere, archived, exc,
		mustRule(tb, "code.personal-go", CategoryCodeStyle, SeverityShould,
			Scope{Environment: "personal", ContextTags: []string{"go", "logs"}, ExcludeTags: []string{"logs"}}, "", 9, t0),
	)
}

func TestExplainListsEveryRule(t *testing.T) {
	rules := whyFixture(t)
	req := SnapshotRequest{Scope: Scope{Environment: "Work", Project: "api", ContextTags: []string{"logs"}}, Now: t0}
	w := Explain(rules, req, autoPromoting(t))
	if len(w.Decisions) != len(rules) {
		t.Fatalf("%d decisions for %d rules", len(w.Decisions), len(rules))
	}
	type got struct {
		Outcome string
		Needed  int
	}
	want := map[string]got{
		"tool.sed-ok-in-api":           {OutcomeIncluded, 0},
		"style.detailed-logs":          {OutcomeIncluded, 0},
		"security.no-secrets":          {OutcomeIncluded, 14}, // provisional at 4: 18 to be active
		"style.no-emoji":               {OutcomeIncluded, 0},
		"tool.no-sed":                  {OutcomeLost, 0},
		"style.concise":                {OutcomeLost, 0},
		"security.too-weak":            {OutcomeInactive, 16},
		"code.old":                     {OutcomeDormant, 1},
		"proposed.elsewhere":           {OutcomeCandidate, 9},
		"proposed.passing":             {OutcomeCandidate, 1},
		"proposed.use-pnpm":            {OutcomeCandidate, 6},
		"tool.no-sed.except-migration": {OutcomeCandidate, NeededNever},
		"code.other-project":           {OutcomeOutOfScope, 0},
		"code.personal-go":             {OutcomeOutOfScope, 0},
		"style.rejected":               {OutcomeArchived, NeededNever},
	}
	gotAll := map[string]got{}
	var order []string
	for _, d := range w.Decisions {
		gotAll[d.RuleID] = got{d.Outcome, d.Needed}
		order = append(order, d.RuleID)
	}
	if d := cmp.Diff(want, gotAll); d != "" {
		t.Errorf("decisions (-want +got)\n%s", d)
	}
	wantOrder := []string{"security.no-secrets", "style.detailed-logs", "style.no-emoji", "tool.sed-ok-in-api",
		"style.concise", "tool.no-sed", "security.too-weak", "code.old",
		"proposed.elsewhere", "proposed.passing", "proposed.use-pnpm", "tool.no-sed.except-migration",
		"code.other-project", "code.personal-go", "style.rejected"}
	if d := cmp.Diff(wantOrder, order); d != "" {
		t.Errorf("order (-want +got)\n%s", d)
	}
	wantCounts := map[string]int{OutcomeIncluded: 4, OutcomeLost: 2, OutcomeInactive: 1, OutcomeDormant: 1,
		OutcomeCandidate: 4, OutcomeOutOfScope: 2, OutcomeArchived: 1}
	if d := cmp.Diff(wantCounts, w.Counts); d != "" {
		t.Errorf("counts (-want +got)\n%s", d)
	}
	if d := cmp.Diff([]string{"tool.sed-ok-in-api", "style.detailed-logs", "security.no-secrets", "style.no-emoji"}, w.Winners); d != "" {
		t.Errorf("winners (-want +got)\n%s", d)
	}
	if w.Scope.Environment != "work" {
		t.Errorf("scope not normalised: %+v", w.Scope)
	}

	byID := map[string]Decision{}
	for _, d := range w.Decisions {
		byID[d.RuleID] = d
	}
	reasons := map[string][]string{
		"security.no-secrets":          {"provisional", "evidence 4 is below n_min 10 and confidence 0.5455 is below c_min 0.8", "14 more corrections to be active"},
		"security.too-weak":            {"evidence 2 is below n_min 10 and confidence 0.4444 is below c_min 0.8; 16 more corrections to be active"},
		"code.old":                     {"dormant: last correction 2023-09-14, over 730 days ago; 1 more correction to be active again"},
		"tool.no-sed":                  {"lost to tool.sed-ok-in-api on specificity (0 vs 2)"},
		"proposed.use-pnpm":            {"candidate: 6 more corrections to reach n_min 5 and c_min 0.7, then it is promoted (evidence 4, confidence 0.5455)"},
		"proposed.passing":             {"candidate: passes n_min 5 and c_min 0.7; its next correction promotes it"},
		"proposed.elsewhere":           {"candidate: 9 more corrections", "it would not apply here: environment is personal, not work"},
		"tool.no-sed.except-migration": {"waits for the user's accept, which also excludes tag migration from tool.no-sed"},
		"code.other-project":           {"rule scope */web/* does not admit work/api/*[logs]: project is web, not api"},
		"code.personal-go":             {"environment is personal, not work; needs context tag go; excludes tag logs"},
		"style.rejected":               {"archived", "a rejected candidate never returns"},
	}
	for id, parts := range reasons {
		for _, p := range parts {
			if !strings.Contains(byID[id].Reason, p) {
				t.Errorf("%s: reason %q lacks %q", id, byID[id].Reason, p)
			}
		}
	}
	if d := byID["tool.no-sed"]; d.LostTo != "tool.sed-ok-in-api" || d.Criterion != CriterionSpecificity {
		t.Errorf("tool.no-sed: lost to %q on %q", d.LostTo, d.Criterion)
	}
	wantMismatch := []ScopeMismatch{
		{Field: ScopeFieldEnvironment, Rule: "personal", Context: "work"},
		{Field: ScopeFieldContextTag, Rule: "go"},
		{Field: ScopeFieldExcludeTag, Rule: "logs"},
	}
	if d := cmp.Diff(wantMismatch, byID["code.personal-go"].ScopeMismatch); d != "" {
		t.Errorf("code.personal-go mismatch (-want +got)\n%s", d)
	}
}

// autoPromoting is the default config with candidates.auto_promote on.
func autoPromoting(tb testing.TB) Config {
	tb.Helper()
	cfg := DefaultConfig()
	if err := cfg.Set("candidates.auto_promote", "true"); err != nil {
		tb.Fatal(err)
	}
	return cfg
}

// TestExplainAutoPromoteOff: by default candidates wait for the user,
// whatever their evidence.
func TestExplainAutoPromoteOff(t *testing.T) {
	cfg := DefaultConfig()
	w := Explain(whyFixture(t), SnapshotRequest{Scope: Scope{Environment: "work"}, Now: t0}, cfg)
	for _, d := range w.Decisions {
		if d.Outcome != OutcomeCandidate {
			continue
		}
		if d.Needed != NeededNever {
			t.Errorf("%s: %d corrections needed, want %d", d.RuleID, d.Needed, NeededNever)
		}
		if d.RuleID != "tool.no-sed.except-migration" && !strings.Contains(d.Reason, "waits for the user's accept (candidates.auto_promote is off)") {
			t.Errorf("%s: %s", d.RuleID, d.Reason)
		}
	}
}

// TestExplainJSON: snake_case keys, -1 for a count that cannot be reached.
func TestExplainJSON(t *testing.T) {
	r := mustRule(t, "style.rejected", CategoryCodeStyle, SeverityShould, Scope{Project: "web"}, "", 1, t0)
	r.Status = StatusArchived
	b, err := json.Marshal(Explain([]Rule{r}, SnapshotRequest{Now: t0}, DefaultConfig()))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"winners":[]`, `"losers":[]`, `"counts":{"archived":1}`, `"generated_at":"2025-11-22T12:00:00Z"`,
		`"outcome":"archived"`, `"corrections_needed":-1`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
	if b, _ := json.Marshal(Explain(nil, SnapshotRequest{Now: t0}, DefaultConfig())); !strings.Contains(string(b), `"decisions":[]`) {
		t.Errorf("no rules: %s", b)
	}
}

// TestBuildSnapshotWithoutTrace: no decisions are built when not asked for.
func TestBuildSnapshotWithoutTrace(t *testing.T) {
	snap := BuildSnapshot(whyFixture(t), SnapshotRequest{Scope: Scope{Project: "api"}, Now: t0.Add(time.Hour)}, DefaultConfig())
	if snap.Decisions != nil || len(snap.Rules) == 0 {
		t.Errorf("decisions %v, rules %d", snap.Decisions, len(snap.Rules))
	}
}
