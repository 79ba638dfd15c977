package server

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store"
)

// TestRegistrySyncRoute: an upload is one named source — named by its name:
// or ?name=, refused without either or when they differ —, syncing it
// leaves the other sources' rules alone, and an empty one is refused
// unless allow_empty=true, which archives its source's rules only.
func TestRegistrySyncRoute(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.RegistryBodyLimit = 64 << 10 })
	const rt = "/v1/registry/sync"
	yaml := func(query, body string) request {
		return request{method: http.MethodPost, path: rt + query, body: body, header: map[string]string{"Content-Type": "application/yaml"}}
	}
	rules := "rules:\n  - rule_id: tool.use-just\n    category: tool_preference\n    severity: should\n    template: \"Run tasks with just, not make\"\n    examples: [\"use just not make\"]\n"
	unnamed := "version: 1\n" + rules
	named := "version: 1\nname: team\n" + rules
	summary := func(want memory.Summary) func(*testing.T, response) {
		return func(t *testing.T, r response) {
			var got memory.Summary
			r.json(t, &got)
			if got.Registry != want.Registry || got.Added != want.Added || got.Archived != want.Archived || got.Updated != want.Updated ||
				(want.Embedded > 0) != (got.Embedded > 0) {
				t.Errorf("summary %s, want %+v", r.body, want)
			}
		}
	}
	runCases(t, e, []routeCase{
		{"no name", yaml("", unnamed), rt, 400, "invalid", "the registry has no name: add a top-level name:", nil},
		// A second source archives none of the default pack's rules.
		{"named by the query", yaml("?name=team", unnamed), rt, 200, "", "", summary(memory.Summary{Registry: "team", Added: 1, Embedded: 1})},
		{"named by the YAML, again: a no-op", yaml("", named), rt, 200, "", "", summary(memory.Summary{Registry: "team"})},
		{"both names, the same", yaml("?name=team", named), rt, 200, "", "", summary(memory.Summary{Registry: "team"})},
		{"names that differ", yaml("?name=other", named), rt, 400, "invalid", `names itself "team" (name:) but the sync names it "other"`, nil},
		{"malformed name", yaml("?name=Team%20Rules", unnamed), rt, 400, "invalid", `malformed registry name "Team Rules"`, nil},
		{"invalid registry", yaml("?name=team", "version: 1\nrules:\n  - rule_id: Bad Id\n    category: x\n    severty: must\n"), rt, 400, "invalid", "", func(t *testing.T, r response) {
			if p := r.errorBody(t).Problems; len(p) < 2 || p[0].Line == 0 {
				t.Errorf("problems %+v", p)
			}
		}},
		{"not YAML", yaml("?name=team", "{{{{"), rt, 400, "invalid", "", nil},
		{"empty body", yaml("?name=team", ""), rt, 400, "invalid", "empty", nil},
		{"wrong content type", request{method: http.MethodPost, path: rt, body: named, header: map[string]string{"Content-Type": "image/png"}}, rt, 400, "invalid", "Content-Type", nil},
		{"too large", yaml("", strings.Repeat("#", 65<<10)), rt, 413, "too_large", "65536", nil},
		{"unknown parameter", yaml("?colour=red", named), rt, 400, "invalid", `unknown query parameter "colour"`, nil},
		{"bad allow_empty", yaml("?allow_empty=maybe", named), rt, 400, "invalid", "allow_empty", nil},
	})
	// The synced rule classifies next to the default pack's.
	if r := e.post("/v1/classify", `{"text":"use just not make"}`); !strings.Contains(string(r.body), "tool.use-just") {
		t.Errorf("classify after sync: %s", r.body)
	}
	mustInForce(t, e.db, "default", "team")

	empty := "version: 1\nname: team\nrules: []\n"
	runCases(t, e, []routeCase{
		{"empty refused", yaml("", empty), rt, 400, "invalid", "allow_empty=true", nil},
		// The lexical vocabulary loses team's words: the union is embedded
		// again under the new fit (and the old fit's vectors pruned).
		{"empty allowed", yaml("?allow_empty=true", empty), rt, 200, "", "", summary(memory.Summary{Registry: "team", Archived: 1, Embedded: 1})},
	})
	if r := e.get("/v1/rules/tool.use-just"); !strings.Contains(string(r.body), `"status":"archived"`) {
		t.Errorf("team's rule after emptying team: %s", r.body)
	}
	if r := e.get("/v1/rules/" + ruleSed); !strings.Contains(string(r.body), `"status":"active-eligible"`) {
		t.Errorf("the default pack's rule after emptying team: %s", r.body)
	}
	mustInForce(t, e.db, "default", "team")
}

// mustInForce fails unless the registries recorded in force are names.
func mustInForce(tb testing.TB, db *store.DB, names ...string) {
	tb.Helper()
	files, err := db.Registries(tb.Context())
	if err != nil {
		tb.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Name)
	}
	if !slices.Equal(got, names) {
		tb.Errorf("registries in force %v, want %v", got, names)
	}
}
