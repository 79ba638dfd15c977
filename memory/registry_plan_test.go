package memory

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

// teamRule is one rule of the test registry "team", in YAML.
func teamRule(id, template, examples string) string {
	return "  - rule_id: " + id + "\n    category: tool_preference\n    severity: should\n    template: \"" + template +
		"\"\n    examples: [" + examples + "]\n"
}

// TestPlanRegistryIsTheSync: step by step on one store, the dry run of a
// registry lists exactly what the sync then does (adds, updates,
// archives, keeps, refuses), and writes nothing — no rule, event, text,
// embedding or registry in force.
func TestPlanRegistryIsTheSync(t *testing.T) {
	db := MustOpenStore(t)
	s := New(db, MustLexical(t, nil), Options{})
	ctx := t.Context()
	a := teamRule("team.use-just", "Run tasks with just, not make", `"use just not make"`)
	b := teamRule("team.use-ruff", "Lint Python with ruff", `"ruff not flake8"`)
	c := teamRule("team.no-tabs", "Indent with spaces, never tabs", `"no tabs please"`)
	d := teamRule("team.own-rule", "Write commit messages in English", `"commits in english"`)
	e := teamRule("team.use-uv", "Install Python packages with uv", `"uv not pip"`)
	a2 := teamRule("team.use-just", "Run every task with just, never make", `"use just not make"`)
	b2 := teamRule("team.use-ruff", "Lint Python with ruff", `"ruff not flake8", "use ruff"`)
	doc := func(name string, rules ...string) []byte {
		out := "version: 1\nname: " + name + "\nrules:\n"
		for _, r := range rules {
			out += r
		}
		if len(rules) == 0 {
			out = "version: 1\nname: " + name + "\nrules: []\n"
		}
		return []byte(out)
	}
	empty := []string{}
	tests := []struct {
		name       string
		before     func(t *testing.T) // a change made before the plan
		yaml       []byte
		allowEmpty bool
		want       RegistryPlan
		code       string // the error both refuse with
	}{
		{name: "first registry of a new store: the default pack first", yaml: doc("team", a, b, c),
			want: RegistryPlan{Registry: "team", DryRun: true, DefaultFirst: true, Added: []string{"team.use-just", "team.use-ruff", "team.no-tabs"}, Updated: empty, Archived: empty, Kept: empty, Unchanged: empty}},
		{name: "the same again: nothing", yaml: doc("team", a, b, c),
			want: RegistryPlan{Registry: "team", DryRun: true, Added: empty, Updated: empty, Archived: empty, Kept: empty, Unchanged: []string{"team.use-just", "team.use-ruff", "team.no-tabs"}}},
		{name: "added, updated, archived and kept at once",
			before: func(t *testing.T) {
				if _, err := s.AddRule(ctx, NewRule{RuleID: "team.own-rule", Category: "code_style", Text: "Commit messages in English"}); err != nil {
					t.Fatalf("AddRule: %v", err)
				}
			},
			yaml: doc("team", a2, b, d, e),
			want: RegistryPlan{Registry: "team", DryRun: true, Added: []string{"team.use-uv"}, Updated: []string{"team.use-just"}, Archived: []string{"team.no-tabs"}, Kept: []string{"team.own-rule"}, Unchanged: []string{"team.use-ruff"}}},
		{name: "restored from the archive, and a change of examples alone", yaml: doc("team", a2, b2, c, d, e),
			want: RegistryPlan{Registry: "team", DryRun: true, Added: empty, Updated: []string{"team.use-ruff", "team.no-tabs"}, Archived: empty, Kept: []string{"team.own-rule"}, Unchanged: []string{"team.use-just", "team.use-uv"}}},
		{name: "another registry's rule id: refused", yaml: doc("other", a), code: engine.ECONFLICT},
		{name: "empty without allow_empty: refused", yaml: doc("team"), code: engine.EINVALID},
		{name: "empty with allow_empty: archives the source", yaml: doc("team"), allowEmpty: true,
			want: RegistryPlan{Registry: "team", DryRun: true, Added: empty, Updated: empty, Archived: []string{"team.no-tabs", "team.use-just", "team.use-ruff", "team.use-uv"}, Kept: empty, Unchanged: empty}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.before != nil {
				tc.before(t)
			}
			src := registry.Source{YAML: tc.yaml}
			opts := SyncOptions{AllowEmpty: tc.allowEmpty, Now: t0}
			statsBefore, filesBefore := mustState(t, db)
			_, plan, perr := s.PlanRegistry(ctx, src, opts)
			statsAfter, filesAfter := mustState(t, db)
			if diff := cmp.Diff(statsBefore, statsAfter); diff != "" {
				t.Errorf("the plan wrote to the store (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(filesBefore, filesAfter); diff != "" {
				t.Errorf("the plan changed the registries in force (-before +after):\n%s", diff)
			}
			_, sum, serr := s.SyncRegistry(ctx, src, opts)
			if tc.code != "" {
				MustCode(t, perr, tc.code)
				MustCode(t, serr, tc.code)
				if engine.ErrorMessage(perr) != engine.ErrorMessage(serr) {
					t.Errorf("the plan refuses with %q, the sync with %q", engine.ErrorMessage(perr), engine.ErrorMessage(serr))
				}
				return
			}
			if perr != nil || serr != nil {
				t.Fatalf("plan: %v; sync: %v", perr, serr)
			}
			if diff := cmp.Diff(tc.want, plan); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
			did := [4]int{sum.Added, sum.Updated, sum.Archived, sum.Kept}
			planned := [4]int{len(plan.Added), len(plan.Updated), len(plan.Archived), len(plan.Kept)}
			if did != planned {
				t.Errorf("the sync added, updated, archived, kept %v; the plan said %v", did, planned)
			}
			for _, id := range plan.Archived {
				if r := mustRule(t, db, id); r.Status != engine.StatusArchived {
					t.Errorf("planned to archive %s: after the sync it is %s", id, r.Status)
				}
			}
			for _, id := range slices.Concat(plan.Added, plan.Updated) {
				if r := mustRule(t, db, id); r.Status == engine.StatusArchived || r.Source != engine.SourceRegistry {
					t.Errorf("planned to add or update %s: after the sync it is %s, from %s", id, r.Status, r.Source)
				}
			}
		})
	}
}

// mustState returns the store's row counts and its registries in force.
func mustState(tb testing.TB, db *store.DB) (store.Stats, []store.RegistryFile) {
	tb.Helper()
	st, err := db.Stats(tb.Context())
	if err != nil {
		tb.Fatalf("Stats: %v", err)
	}
	files, err := db.Registries(tb.Context())
	if err != nil {
		tb.Fatalf("Registries: %v", err)
	}
	return st, files
}
