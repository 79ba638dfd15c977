package server

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/memory"
)

// TestRegistrySyncDryRun: POST /v1/registry/sync?dry_run=true answers the
// plan (documented in openapi.json) and writes nothing; the same upload
// synced then does what the plan said; a registry the sync refuses is
// refused by the dry run too.
func TestRegistrySyncDryRun(t *testing.T) {
	e := newTestEnv(t, nil)
	const rt = "/v1/registry/sync"
	post := func(query, body string) response {
		return e.do(request{method: http.MethodPost, path: rt + query, body: body, header: map[string]string{"Content-Type": "application/yaml"}})
	}
	rule := func(id, text string) string {
		return "  - rule_id: " + id + "\n    category: code_style\n    severity: should\n    template: \"" + text + "\"\n"
	}
	v1 := "version: 1\nname: team\nrules:\n" + rule("team.one", "First rule") + rule("team.two", "Second rule") + rule("team.four", "Fourth rule")
	v2 := "version: 1\nname: team\nrules:\n" + rule("team.one", "First rule, reworded") + rule("team.three", "Third rule") + rule("team.four", "Fourth rule")
	mustStatus(t, post("", v1), http.StatusOK)

	rulesBefore := e.get("/v1/rules?limit=1000")
	r := post("?dry_run=true", v2)
	mustStatus(t, r, http.StatusOK)
	checkDoc(t, http.MethodPost, rt, r)
	var plan memory.RegistryPlan
	r.json(t, &plan)
	want := memory.RegistryPlan{Registry: "team", DryRun: true, Added: []string{"team.three"}, Updated: []string{"team.one"},
		Archived: []string{"team.two"}, Kept: []string{}, Unchanged: []string{"team.four"}}
	if diff := cmp.Diff(want, plan); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(string(rulesBefore.body), string(e.get("/v1/rules?limit=1000").body)); diff != "" {
		t.Errorf("the dry run changed the rules:\n%s", diff)
	}

	r = post("", v2)
	mustStatus(t, r, http.StatusOK)
	var sum memory.Summary
	r.json(t, &sum)
	if got := [4]int{sum.Added, sum.Updated, sum.Archived, sum.Kept}; got != [4]int{1, 1, 1, 0} {
		t.Errorf("the sync added, updated, archived, kept %v; the plan said 1, 1, 1, 0", got)
	}

	conflict := "version: 1\nname: team\nrules:\n" + rule(ruleSed, "Mine now")
	for _, q := range []string{"?dry_run=true", ""} {
		r := post(q, conflict)
		mustStatus(t, r, http.StatusConflict)
		checkDoc(t, http.MethodPost, rt, r)
	}
	runCases(t, e, []routeCase{
		{"bad dry_run", request{method: http.MethodPost, path: rt + "?dry_run=perhaps", body: v2, header: map[string]string{"Content-Type": "application/yaml"}}, rt, 400, "invalid", "dry_run", nil},
	})
}
