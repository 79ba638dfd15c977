package memorytest

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

func syncNamed(t *testing.T, db *store.DB, name string, defs ...engine.Definition) memory.SyncResult {
	t.Helper()
	res, err := memory.ApplyRegistry(context.Background(), db, memory.RegistrySync{Name: name, Definitions: defs, At: t0})
	if err != nil {
		t.Fatalf("SyncRegistry(%s): %v", name, err)
	}
	return res
}

func status(t *testing.T, db *store.DB, id string) engine.Status {
	t.Helper()
	r, err := db.GetRule(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r.Status
}

// testSyncNamedRegistries: each registry is a source of its own. A sync
// archives only the rules of its registry that it no longer defines, even
// when it defines nothing at all; the default pack is the registry of a
// sync without a name.
func testSyncNamedRegistries(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	MustSync(t, db, storetest.Def("pack.a", "Pack A"), storetest.Def("pack.b", "Pack B")) // the default pack
	res := syncNamed(t, db, "team.yaml", storetest.Def("team.x", "Team X"), storetest.Def("team.y", "Team Y"))
	if diff := cmp.Diff(memory.SyncResult{Added: []string{"team.x", "team.y"}, Updated: []string{}, Archived: []string{}, Kept: []string{}}, res); diff != "" {
		t.Errorf("first sync of team.yaml (-want +got):\n%s", diff)
	}
	if h, _ := db.History(ctx, "team.x", 0, 0); len(h) != 1 || !strings.Contains(h[0].Detail, "team.yaml") {
		t.Errorf("creation event %+v does not name the registry", h)
	}
	res = syncNamed(t, db, "team.yaml", storetest.Def("team.y", "Team Y"))
	if diff := cmp.Diff(memory.SyncResult{Added: []string{}, Updated: []string{}, Archived: []string{"team.x"}, Kept: []string{}}, res); diff != "" {
		t.Errorf("team.yaml without team.x (-want +got):\n%s", diff)
	}
	res = syncNamed(t, db, "team.yaml")
	if diff := cmp.Diff(memory.SyncResult{Added: []string{}, Updated: []string{}, Archived: []string{"team.y"}, Kept: []string{}}, res); diff != "" {
		t.Errorf("empty team.yaml (-want +got):\n%s", diff)
	}
	for id, want := range map[string]engine.Status{"pack.a": engine.StatusActiveEligible, "pack.b": engine.StatusActiveEligible,
		"team.x": engine.StatusArchived, "team.y": engine.StatusArchived} {
		if got := status(t, db, id); got != want {
			t.Errorf("%s is %s, want %s", id, got, want)
		}
	}
	// The default pack's own sync archives only its rules; team.yaml's come back with team.yaml.
	res = syncNamed(t, db, memory.DefaultRegistry, storetest.Def("pack.a", "Pack A"))
	if diff := cmp.Diff([]string{"pack.b"}, res.Archived); diff != "" {
		t.Errorf("default pack without pack.b archived (-want +got):\n%s", diff)
	}
	res = syncNamed(t, db, "team.yaml", storetest.Def("team.x", "Team X"))
	if diff := cmp.Diff(memory.SyncResult{Added: []string{}, Updated: []string{"team.x"}, Archived: []string{}, Kept: []string{}}, res); diff != "" {
		t.Errorf("team.x back in team.yaml (-want +got):\n%s", diff)
	}
	if status(t, db, "team.x") != engine.StatusActiveEligible || status(t, db, "pack.a") != engine.StatusActiveEligible {
		t.Error("restoring team.x changed the wrong rules")
	}
	// A rule that left its registry may be defined by another one, which takes it over.
	res = syncNamed(t, db, "other.yaml", storetest.Def("team.y", "Team Y, elsewhere"))
	if diff := cmp.Diff(memory.SyncResult{Added: []string{}, Updated: []string{"team.y"}, Archived: []string{}, Kept: []string{}}, res); diff != "" {
		t.Errorf("other.yaml taking team.y over (-want +got):\n%s", diff)
	}
	if r, _ := db.GetRule(ctx, "team.y"); r.Status != engine.StatusActiveEligible || r.Text != "Team Y, elsewhere" || r.Registry != "other.yaml" {
		t.Errorf("team.y after other.yaml took it over: %+v", r)
	}
	// Every read names the registry that defines a rule.
	rules, err := db.ListRules(ctx, store.RuleFilter{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"pack.a": memory.DefaultRegistry, "pack.b": memory.DefaultRegistry, "team.x": "team.yaml", "team.y": "other.yaml"}
	got := map[string]string{}
	for _, r := range rules {
		got[r.RuleID] = r.Registry
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the registry of each listed rule (-want +got):\n%s", diff)
	}
	if res := syncNamed(t, db, "team.yaml", storetest.Def("team.x", "Team X")); len(res.Archived) != 0 {
		t.Errorf("team.yaml archived %v, which other.yaml defines now", res.Archived)
	}
}

// testSyncRegistryConflict: a definition whose id is a rule another
// registry defines is refused, naming both, and nothing is written.
func testSyncRegistryConflict(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	syncNamed(t, db, "team.yaml", storetest.Def("team.x", "Team X"))
	before := storetest.MustCount(t, db)
	_, err := memory.ApplyRegistry(ctx, db, memory.RegistrySync{Name: "mine.yaml", YAML: []byte("v1"),
		Definitions: []engine.Definition{storetest.Def("mine.a", "Mine A"), storetest.Def("team.x", "My X")}, At: t0})
	storetest.WantCode(t, err, engine.ECONFLICT)
	for _, want := range []string{"team.x", `"team.yaml"`, `"mine.yaml"`} {
		if !strings.Contains(engine.ErrorMessage(err), want) {
			t.Errorf("conflict %q does not name %s", engine.ErrorMessage(err), want)
		}
	}
	if diff := cmp.Diff(before, storetest.MustCount(t, db)); diff != "" {
		t.Errorf("a refused sync wrote (-before +after):\n%s", diff)
	}
	if files, _ := db.Registries(ctx); len(files) != 0 {
		t.Errorf("a refused sync recorded %+v", files)
	}
	for _, name := range []string{strings.Repeat("n", 257), "bad\nname"} {
		_, err := memory.ApplyRegistry(ctx, db, memory.RegistrySync{Name: name, Definitions: []engine.Definition{storetest.Def("mine.a", "A")}})
		storetest.WantCode(t, err, engine.EINVALID)
	}
	if r, _ := db.GetRule(ctx, "team.x"); r.Text != "Team X" || r.Status != engine.StatusActiveEligible {
		t.Errorf("team.x after the refused sync: %+v", r)
	}
}

// testRegistries: each registry's YAML is recorded under its name, a
// re-sync of the same YAML changes nothing.
func testRegistries(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	if files, err := db.Registries(ctx); err != nil || len(files) != 0 {
		t.Fatalf("Registries of a new store = %+v, %v", files, err)
	}
	for _, s := range []memory.RegistrySync{
		{Name: "team.yaml", YAML: []byte("team v1"), Definitions: []engine.Definition{storetest.Def("team.x", "X")}},
		{YAML: []byte("pack v1"), Definitions: []engine.Definition{storetest.Def("pack.a", "A")}},
		{Name: "team.yaml", YAML: []byte("team v2"), Definitions: []engine.Definition{storetest.Def("team.x", "X2")}},
	} {
		if _, err := memory.ApplyRegistry(ctx, db, s); err != nil {
			t.Fatal(err)
		}
	}
	files, err := db.Registries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Name+"="+string(f.YAML))
		if f.SHA256 != store.TextSHA256(string(f.YAML)) || f.SyncedAt.IsZero() {
			t.Errorf("registry %s: sha256 %s, synced at %v", f.Name, f.SHA256, f.SyncedAt)
		}
	}
	if diff := cmp.Diff([]string{"default=pack v1", "team.yaml=team v2"}, got); diff != "" {
		t.Errorf("Registries (-want +got):\n%s", diff)
	}
	v := storetest.MustVersion(t, db)
	if _, err := memory.ApplyRegistry(ctx, db, memory.RegistrySync{Name: "team.yaml", YAML: []byte("team v2"),
		Definitions: []engine.Definition{storetest.Def("team.x", "X2")}}); err != nil {
		t.Fatal(err)
	}
	again, _ := db.Registries(ctx)
	if !cmp.Equal(files, again) || storetest.MustVersion(t, db) != v {
		t.Errorf("a sync of the recorded YAML changed something: %+v → %+v", files, again)
	}
}

// testPlanRegistry: a plan is the sync's own decisions without its writes —
// the store is unchanged after it, and the sync then does exactly what the
// plan said; a sync that would fail makes the plan fail the same way.
func testPlanRegistry(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	syncNamed(t, db, "team.yaml", storetest.Def("team.x", "Team X"), storetest.Def("team.y", "Team Y"))
	storetest.MustCreate(t, db, "mine.z", "tool_preference", engine.Scope{})
	next := memory.RegistrySync{Name: "team.yaml", At: t0, Definitions: []engine.Definition{
		storetest.Def("team.x", "Team X, changed"), storetest.Def("team.w", "Team W"), storetest.Def("mine.z", "Mine Z")}}
	before, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := memory.PlanRegistrySyncs(ctx, db, next)
	if err != nil {
		t.Fatal(err)
	}
	if after, err := db.Stats(ctx); err != nil || after != before {
		t.Errorf("the plan wrote: %+v → %+v (%v)", before, after, err)
	}
	if r, _ := db.GetRule(ctx, "team.x"); r.Text != "Team X" {
		t.Errorf("team.x after the plan: %q", r.Text)
	}
	res, err := memory.ApplyRegistry(ctx, db, next)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]memory.SyncResult{res}, plan); diff != "" {
		t.Errorf("plan and sync differ (-sync +plan):\n%s", diff)
	}
	if len(res.Added) != 1 || len(res.Updated) != 1 || len(res.Archived) != 1 || len(res.Kept) != 1 {
		t.Errorf("sync %+v: want team.w added, team.x updated, team.y archived, mine.z kept", res)
	}
	_, err = memory.PlanRegistrySyncs(ctx, db, memory.RegistrySync{Name: "other.yaml", At: t0, Definitions: []engine.Definition{storetest.Def("team.x", "X")}})
	storetest.WantCode(t, err, engine.ECONFLICT)
}
