package ui_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/server"
)

var planEntry = regexp.MustCompile(`data-testid="plan-(added|updated|archived|kept)"[^>]*>(?:<code>|<a href="[^"]*">)?([a-z0-9._-]+)`)

// planOf reads the ids of a preview page by list.
func planOf(body string) map[string][]string {
	out := map[string][]string{}
	for _, m := range planEntry.FindAllStringSubmatch(body, -1) {
		out[m[1]] = append(out[m[1]], m[2])
	}
	return out
}

var syncedLine = regexp.MustCompile(`(\d+) added, (\d+) updated, (\d+) archived, (\d+) kept`)

// TestRegistryPreviewIsTheSync: through the page, the preview of each
// upload lists what its sync then does, writes nothing, and an upload the
// sync would refuse (an id of the default pack) is shown refused.
func TestRegistryPreviewIsTheSync(t *testing.T) {
	e := newEnv(t, server.APIKeys{}, false)
	b := e.browserDefault()
	tok := csrf(t, b.get("/registry"))
	rule := func(id, text string) string {
		return "  - rule_id: " + id + "\n    category: code_style\n    severity: should\n    template: \"" + text + "\"\n"
	}
	doc := func(rules ...string) string { return "version: 1\nname: team\nrules:\n" + strings.Join(rules, "") }
	if st := b.api(http.MethodPost, "/v1/rules", "", `{"rule_id":"team.mine","category":"code_style","text":"My own rule"}`, nil); st != http.StatusCreated {
		t.Fatalf("creating a user rule: %d", st)
	}
	steps := []struct {
		name string
		yaml string
		want map[string][]string
	}{
		{"two new rules", doc(rule("team.one", "First rule"), rule("team.two", "Second rule")),
			map[string][]string{"added": {"team.one", "team.two"}}},
		{"one changed, one gone, one new, one the user's",
			doc(rule("team.one", "First rule, reworded"), rule("team.three", "Third rule"), rule("team.mine", "Theirs")),
			map[string][]string{"added": {"team.three"}, "updated": {"team.one"}, "archived": {"team.two"}, "kept": {"team.mine"}}},
		{"back from the archive", doc(rule("team.one", "First rule, reworded"), rule("team.two", "Second rule"), rule("team.three", "Third rule")),
			map[string][]string{"updated": {"team.two"}}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			form := url.Values{"csrf": {tok}, "yaml": {s.yaml}}
			before := e.rulesJSON(b)
			prev := b.post("/registry/preview", form)
			if prev.status != http.StatusOK {
				t.Fatalf("preview: %d %.500s", prev.status, prev.body)
			}
			if after := e.rulesJSON(b); after != before {
				t.Errorf("the preview changed the rules")
			}
			got := planOf(prev.body)
			if diff := cmp.Diff(s.want, got); diff != "" {
				t.Errorf("preview (-want +got):\n%s", diff)
			}
			done := b.post("/registry/sync", form)
			m := syncedLine.FindStringSubmatch(done.body)
			if done.status != http.StatusOK || m == nil {
				t.Fatalf("sync: %d %.500s", done.status, done.body)
			}
			var did [4]int
			for i := range did {
				did[i], _ = strconv.Atoi(m[i+1])
			}
			if planned := [4]int{len(got["added"]), len(got["updated"]), len(got["archived"]), len(got["kept"])}; did != planned {
				t.Errorf("the sync added, updated, archived, kept %v; the preview listed %v", did, got)
			}
		})
	}
	refused := b.post("/registry/preview", url.Values{"csrf": {tok}, "yaml": {doc(rule(aRule, "Mine now"))}})
	if refused.status != http.StatusConflict || !strings.Contains(refused.body, `data-testid="refused"`) ||
		!strings.Contains(refused.body, "belongs to registry &#34;default&#34;") {
		t.Errorf("a preview of a default pack's id: %d %.800s", refused.status, refused.body)
	}
	if slices.ContainsFunc([]string{"plan-added", "Sync it"}, func(s string) bool { return strings.Contains(refused.body, s) }) {
		t.Errorf("a refused preview offers to sync")
	}
}

// rulesJSON is GET /v1/rules?limit=1000 as text.
func (e *env) rulesJSON(b *browser) string {
	e.t.Helper()
	var v json.RawMessage
	if st := b.api(http.MethodGet, "/v1/rules?limit=1000", "", "", &v); st != http.StatusOK {
		e.t.Fatalf("GET /v1/rules: %d", st)
	}
	return string(v)
}
