package memorytest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

func testSyncDefinitions(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	a, b, c := storetest.Def("reg.a", "Rule A", "say a", "A!"), storetest.Def("reg.b", "Rule B"), storetest.Def("reg.c", "Rule C", "Rule C")
	res := MustSync(t, db, a, b, c)
	if diff := cmp.Diff(memory.SyncResult{Added: []string{"reg.a", "reg.b", "reg.c"}, Updated: []string{}, Archived: []string{}, Kept: []string{}}, res); diff != "" {
		t.Errorf("first sync (-want +got):\n%s", diff)
	}
	ra, _ := db.GetRule(ctx, "reg.a")
	if ra.Source != engine.SourceRegistry || ra.Alpha != 2 || ra.Beta != 5 || ra.Status != engine.StatusActiveEligible {
		t.Errorf("synced rule %+v", ra)
	}
	if texts, _ := db.RuleTexts(ctx, "reg.c"); len(texts) != 1 || texts[0].Kind != store.KindTemplate {
		t.Errorf("reg.c texts %+v: an example equal to the template is the template", texts)
	}

	// Evidence and embeddings before the second sync.
	for i := 0; i < 4; i++ {
		MustRecord(t, db, engine.Correction{RuleID: "reg.a"})
	}
	MustRecord(t, db, engine.Correction{RuleID: "reg.a", Polarity: engine.Counter})
	miss, _ := db.MissingEmbeddings(ctx, "m@1")
	vecs := make([][]float32, len(miss))
	for i := range vecs {
		vecs[i] = []float32{float32(i), 1}
	}
	if err := db.PutEmbeddings(ctx, t0, "m@1", miss, vecs); err != nil {
		t.Fatal(err)
	}

	// A no-op sync writes nothing at all.
	n, v := storetest.MustCount(t, db), storetest.MustVersion(t, db)
	if res := MustSync(t, db, a, b, c); len(res.Added)+len(res.Updated)+len(res.Archived) != 0 {
		t.Errorf("no-op sync: %+v", res)
	}
	if storetest.MustCount(t, db) != n || storetest.MustVersion(t, db) != v {
		t.Error("a no-op sync wrote")
	}

	// a changes text and drops an example; b leaves the registry.
	a2 := storetest.Def("reg.a", "Rule A, reworded", "say a")
	a2.Rule.Scope = engine.Scope{Project: "api"}
	res = MustSync(t, db, a2, c)
	if diff := cmp.Diff(memory.SyncResult{Added: []string{}, Updated: []string{"reg.a"}, Archived: []string{"reg.b"}, Kept: []string{}}, res); diff != "" {
		t.Errorf("second sync (-want +got):\n%s", diff)
	}
	got, _ := db.GetRule(ctx, "reg.a")
	want := ra
	want.Text, want.Scope = "Rule A, reworded", engine.Scope{Project: "api"}
	want.Alpha, want.Beta, want.Reinforcements, want.CounterExamples, want.LastCorrection = 6, 6, 4, 1, t0
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("updated rule (-want +got), evidence must be kept:\n%s", diff)
	}
	h, _ := db.History(ctx, "reg.a", 0, 0)
	if last := h[len(h)-1]; last.EventType != engine.EventManualOverride || !strings.Contains(last.Detail, "definition updated from registry (text, scope)") {
		t.Errorf("last event %+v", last)
	}
	texts, _ := db.RuleTexts(ctx, "reg.a")
	var kinds []string
	for _, x := range texts {
		kinds = append(kinds, x.Kind+":"+x.Text)
	}
	if diff := cmp.Diff([]string{"example:say a", "template:Rule A, reworded"}, kinds); diff != "" {
		t.Errorf("texts (-want +got):\n%s", diff)
	}
	embs, _ := db.LoadEmbeddings(ctx, "m@1")
	for _, e := range embs {
		if e.RuleID == "reg.b" || (e.RuleID == "reg.a" && e.SHA256 != store.TextSHA256("say a")) {
			t.Errorf("stale embedding %s %s survived", e.RuleID, e.Kind)
		}
	}
	if rb, _ := db.GetRule(ctx, "reg.b"); rb.Status != engine.StatusArchived {
		t.Errorf("reg.b not archived: %+v", rb)
	}

	// b returns: restored. c archived by the user stays archived.
	if _, err := memory.ArchiveRule(ctx, db, "reg.c", t0); err != nil {
		t.Fatal(err)
	}
	res = MustSync(t, db, a2, b, c)
	if diff := cmp.Diff(memory.SyncResult{Added: []string{}, Updated: []string{"reg.b"}, Archived: []string{}, Kept: []string{}}, res); diff != "" {
		t.Errorf("third sync (-want +got):\n%s", diff)
	}
	if rb, _ := db.GetRule(ctx, "reg.b"); rb.Status != engine.StatusActiveEligible {
		t.Errorf("reg.b not restored: %+v", rb)
	}
	if rc, _ := db.GetRule(ctx, "reg.c"); rc.Status != engine.StatusArchived {
		t.Errorf("reg.c, archived by the user, was restored: %+v", rc)
	}

	// A user rule is never archived by a sync; a user edit survives until the registry changes.
	storetest.MustCreate(t, db, "user.x", "tool_preference", engine.Scope{})
	if _, err := memory.UpdateRule(ctx, db, "reg.b", memory.RuleUpdate{Text: ptr("my wording")}, t0); err != nil {
		t.Fatal(err)
	}
	MustSync(t, db, a2, b, c)
	if rb, _ := db.GetRule(ctx, "reg.b"); rb.Text != "my wording" {
		t.Errorf("user edit lost: %+v", rb)
	}
	if ux, _ := db.GetRule(ctx, "user.x"); ux.Status != engine.StatusActiveEligible {
		t.Errorf("user rule archived by a sync")
	}

	// A registry that defines the id of a rule the user created leaves that
	// rule as it is, every time.
	for range 2 {
		res = MustSync(t, db, a2, b, c, storetest.Def("user.x", "The registry's wording"))
		if diff := cmp.Diff(memory.SyncResult{Added: []string{}, Updated: []string{}, Archived: []string{}, Kept: []string{"user.x"}}, res); diff != "" {
			t.Errorf("sync over a user rule (-want +got):\n%s", diff)
		}
		if ux, _ := db.GetRule(ctx, "user.x"); ux.Text != "Text of user.x" || ux.Source != engine.SourceUser {
			t.Errorf("user rule overwritten by the registry: %+v", ux)
		}
	}
}

func testSyncBadDefinitionWritesNothing(t *testing.T, open storetest.Opener) {
	db := open(t)
	bad := storetest.Def("reg.bad", "x")
	bad.Rule.Severity = "urgent"
	for _, tc := range []struct {
		name string
		defs []engine.Definition
		msg  string
	}{
		{"unknown severity", []engine.Definition{storetest.Def("reg.ok", "ok"), bad}, `definition 2 (reg.bad): unknown severity "urgent"`},
		{"duplicate", []engine.Definition{storetest.Def("reg.ok", "ok"), storetest.Def("reg.ok", "again")}, "duplicate rule id reg.ok"},
		{"empty example", []engine.Definition{storetest.Def("reg.ok", "ok", " ")}, "example 1 is empty"},
		{"bad id", []engine.Definition{storetest.Def("Reg OK", "ok")}, "malformed rule id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := memory.ApplyRegistry(context.Background(), db, memory.RegistrySync{Definitions: tc.defs, At: t0})
			storetest.WantCode(t, err, engine.EINVALID)
			if !strings.Contains(engine.ErrorMessage(err), tc.msg) {
				t.Errorf("message %q does not say %q", engine.ErrorMessage(err), tc.msg)
			}
			if c := storetest.MustCount(t, db); c != (store.Stats{}) {
				t.Errorf("wrote %+v", c)
			}
		})
	}
}

func testSyncTenThousandDefinitions(t *testing.T, open storetest.Opener) {
	if testing.Short() {
		t.Skip("short")
	}
	db := open(t)
	defs := make([]engine.Definition, 10000)
	for i := range defs {
		defs[i] = storetest.Def(fmt.Sprintf("reg.r%05d", i), fmt.Sprintf("Rule number %d", i), fmt.Sprintf("example %d", i))
	}
	if res := MustSync(t, db, defs...); len(res.Added) != 10000 {
		t.Fatalf("added %d", len(res.Added))
	}
	if n, _ := db.CountTexts(context.Background()); n != 20000 {
		t.Errorf("%d texts, want 20000", n)
	}
	if res := MustSync(t, db, defs[:9000]...); len(res.Archived) != 1000 || len(res.Updated) != 0 {
		t.Errorf("second sync: %d archived, %d updated", len(res.Archived), len(res.Updated))
	}
}

// TestFaultStateClears: a full disk or a read-only file is forgotten at the
// next commit; damage is not, and is not replaced by a lesser fault.
// TestOpenReadOnly opens a database whose file cannot be written: it reads,
// every write fails at once with the read-only fault, Writable says so, and
// a sync of the registry already in force succeeds without writing.
// TestSyncRegistryAllOrNothing: definitions, contrary texts and the registry
// in force are written in one transaction; a failure in the contrary texts
// leaves neither the definitions nor the registry in force.
func testSyncRegistryAllOrNothing(t *testing.T, open storetest.Opener) {
	ctx := context.Background()
	db := open(t)
	defs := []engine.Definition{storetest.Def("reg.a", "Rule A"), storetest.Def("reg.b", "Rule B")}
	bad := memory.RegistrySync{Definitions: defs, Name: "r.yaml", YAML: []byte("v2"),
		Contrary: func([]string) map[string][]string {
			return map[string][]string{"reg.a": {"A is fine"}, "reg.zzz": {"no such rule"}}
		}}
	if _, err := memory.ApplyRegistry(ctx, db, bad); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Fatalf("a sync whose contrary texts name an unknown rule: %v, want ENOTFOUND", err)
	}
	if _, err := db.GetRule(ctx, "reg.a"); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Fatalf("the failed sync left reg.a: %v", err)
	}
	if files, err := db.Registries(ctx); err != nil || len(files) != 0 {
		t.Fatalf("the failed sync recorded its registry in force: %+v, %v", files, err)
	}
	good := bad
	good.Contrary = func(kept []string) map[string][]string { return map[string][]string{"reg.a": {"A is fine"}} }
	res, err := memory.ApplyRegistry(ctx, db, good)
	if err != nil || len(res.Added) != 2 {
		t.Fatalf("SyncRegistry = %+v, %v", res, err)
	}
	files, err := db.Registries(ctx)
	if err != nil || len(files) != 1 || files[0].Name != "r.yaml" || string(files[0].YAML) != "v2" {
		t.Fatalf("registries in force = %+v, %v; want r.yaml with v2", files, err)
	}
	texts, err := db.RuleTexts(ctx, "reg.a")
	if err != nil {
		t.Fatal(err)
	}
	var contrary int
	for _, x := range texts {
		if x.Kind == store.KindContrary {
			contrary++
		}
	}
	if contrary != 1 {
		t.Fatalf("reg.a has %d contrary texts, want 1: %+v", contrary, texts)
	}
}

// TestOpenCleansOrphans: embeddings of archived rules are deleted at Open.
// TestQuickCheck: a sound file passes; a file with a damaged interior page
// fails with the damaged-file fault, which Writable reports from then on.
// TestOpenErrNamesTheFault: a database that cannot be opened for a fault of
// its file says which, with its path, instead of the driver's words.
