package server

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/server/servertest"
)

// tenantBackends are the stores every tenant test runs on.
var tenantBackends = []string{"sqlite", "postgres"}

// tenantActivity uses every write route as one tenant (key) in two
// projects, naming everything it creates with marker, and checks each
// answer's status. Idempotency keys and one rule id (team.shared-rule) are
// the same in every tenant.
func tenantActivity(t *testing.T, e *tenantEnv, key, marker string, sharedCorrections int) {
	t.Helper()
	const post, patch = http.MethodPost, http.MethodPatch
	for _, p := range []string{"p1", "p2"} {
		e.Must(201, key, post, "/v1/rules", fmt.Sprintf(
			`{"rule_id":"%s.%s-rule","category":"tool_preference","text":"always run the %s checker in %s","scope":{"project":"%s"}}`, marker, p, marker, p, p))
	}
	if status, b := e.Call(key, post, "/v1/rules", `{"rule_id":"team.shared-rule","category":"code_style","text":"prefer small pull requests"}`); status != 201 && status != 409 {
		t.Fatalf("adding team.shared-rule: %d %s", status, b)
	}
	e.Must(201, key, post, "/v1/corrections", fmt.Sprintf(`{"text":"you skipped the %s checker","rule_id":"%s.p1-rule","scope":{"project":"p1"}}`, marker, marker),
		// The same key in tenants whose markers are as long, for different requests.
		"Idempotency-Key", "same-key-"+strconv.Itoa(len(marker)))
	for i := 0; i < sharedCorrections; i++ {
		e.Must(201, key, post, "/v1/corrections", `{"text":"that pull request is too large","rule_id":"team.shared-rule","scope":{"project":"p2"}}`)
	}
	// Two confirmations of one text: the first is left pending, the second
	// accepted. In a tenant's second run the accepted text is one of its
	// learned exemplars, and matches at once.
	b := e.Must(201, key, post, "/v1/corrections", `{"text":"`+textConfirm+`","scope":{"project":"p1"}}`)
	if jsonField(t, b, "pending_id") != "" {
		b = e.Must(201, key, post, "/v1/corrections", `{"text":"`+textConfirm+`","scope":{"project":"p2"}}`)
		e.Must(200, key, post, "/v1/confirmations/"+jsonField(t, b, "pending_id"), `{"action":"accept","rule_id":"tool.use-ripgrep"}`)
	}
	e.Must(200, key, patch, "/v1/rules/"+marker+".p2-rule", fmt.Sprintf(`{"text":"always run the %s checker twice in p2"}`, marker))
	b = e.Must(201, key, post, "/v1/corrections", `{"text":"always name the `+marker+` kubernetes namespaces in lowercase","scope":{"project":"p2"}}`)
	var rec struct {
		Decision    string `json:"decision"`
		CreatedRule *struct {
			RuleID string `json:"rule_id"`
		} `json:"created_rule"`
	}
	if err := jsonUnmarshal(b, &rec); err != nil || (rec.CreatedRule == nil) != (rec.Decision != "new_rule") {
		t.Fatalf("a correction matching no rule: %s", b)
	}
	if rec.CreatedRule != nil { // a second run matches the first run's rule
		e.Must(200, key, post, "/v1/rules/"+rec.CreatedRule.RuleID+"/accept", "")
	}
	yaml := fmt.Sprintf("version: 1\nname: %spack\nrules:\n  - rule_id: %s.pack-rule\n    category: tool_preference\n    severity: should\n"+
		"    template: \"Format %s files with the %s formatter\"\n    examples: [\"use the %s formatter\"]\n", marker, marker, marker, marker, marker)
	e.Must(200, key, post, "/v1/registry/sync", yaml, "Content-Type", "application/yaml")
	e.Must(200, key, post, "/v1/classify", `{"text":"stop editing files with sed","scope":{"project":"p1"}}`)
	e.Must(200, key, post, "/v1/embeddings", `{"input":["`+marker+` text"]}`)
	dir := hookProject(t)
	e.Must(200, key, post, "/v1/hooks/claude-code", hookEvent(t, dir, map[string]string{"hook_event_name": "SessionStart", "source": "startup"}))
	e.Must(200, key, post, "/v1/hooks/claude-code", hookEvent(t, dir, map[string]string{"hook_event_name": "UserPromptSubmit",
		"prompt": "CORRECT[" + marker + ".p1-rule]: you skipped the " + marker + " checker again"}))
}

// tenantSnapshot is every read route's answer for key: the rules (and each
// one's view and history), personas and why in both projects,
// confirmations, a classification.
func tenantSnapshot(t *testing.T, e *tenantEnv, key string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	get := func(path string) string {
		b := e.Must(200, key, http.MethodGet, path, "")
		snap[path] = b
		return b
	}
	for _, p := range []string{"p1", "p2"} {
		get("/v1/rules?limit=1000&project=" + p)
		get("/v1/persona?project=" + p)
		get("/v1/persona?format=prompt&project=" + p)
		get("/v1/why?project=" + p)
	}
	get("/v1/confirmations?status=all&limit=1000")
	for _, id := range servertest.RuleIDs(t, get("/v1/rules?limit=1000")) {
		get("/v1/rules/" + id)
		get("/v1/rules/" + id + "/history?limit=1000")
	}
	snap["classify"] = e.Must(200, key, http.MethodPost, "/v1/classify", `{"text":"you skipped the checker again","scope":{"project":"p1"}}`)
	return snap
}

// sameSnapshot fails where now differs from before.
func sameSnapshot(t *testing.T, who string, before, now map[string]string) {
	t.Helper()
	for k, v := range before {
		if now[k] != v {
			t.Errorf("%s: %s changed when another tenant wrote:\nbefore %s\nafter  %s", who, k, v, now[k])
		}
	}
	if len(now) != len(before) {
		t.Errorf("%s: %d answers, was %d", who, len(now), len(before))
	}
}

// noMention fails when any answer of snap holds one of words.
func noMention(t *testing.T, who string, snap map[string]string, words ...string) {
	t.Helper()
	for k, v := range snap {
		for _, w := range words {
			if strings.Contains(v, w) {
				t.Errorf("%s: %s mentions %q: %s", who, k, w, v)
			}
		}
	}
}

// TestTenantsIsolation: two tenants (and the default one) × two projects on
// each store, over every route: what one tenant writes changes no answer of
// another (reads, counts, confirmations, classifications), no answer of a
// tenant mentions another's data, a key of one cannot reach another's rules
// or confirmations by id (the same 404 as an id that exists nowhere), and
// /metrics is the operator's only and names no tenant or rule.
func TestTenantsIsolation(t *testing.T) {
	for _, backend := range tenantBackends {
		t.Run(backend, func(t *testing.T) {
			e := newTenantEnv(t, backend, nil)
			tenantActivity(t, e, bobKey, "bravo", 1)
			tenantActivity(t, e, opKey, "delta", 0)
			bob, op := tenantSnapshot(t, e, bobKey), tenantSnapshot(t, e, opKey)
			tenantActivity(t, e, aliceKey, "amber", 3)
			sameSnapshot(t, "bob", bob, tenantSnapshot(t, e, bobKey))
			sameSnapshot(t, "default", op, tenantSnapshot(t, e, opKey))
			alice := tenantSnapshot(t, e, aliceKey)
			tenantActivity(t, e, bobKey, "bravoagain", 3)
			sameSnapshot(t, "alice", alice, tenantSnapshot(t, e, aliceKey))
			bob = tenantSnapshot(t, e, bobKey)

			noMention(t, "alice", alice, "bravo", "delta")
			noMention(t, "bob", bob, "amber", "delta")
			noMention(t, "default", op, "amber", "bravo")
			if got := servertest.RuleIDs(t, alice["/v1/rules?limit=1000"]); !slices.Contains(got, "amber.pack-rule") || !slices.Contains(got, "team.shared-rule") {
				t.Errorf("alice's rules %v lack her own", got)
			}
			// One rule id in both tenants, each with its own evidence.
			if a, b := alice["/v1/rules/team.shared-rule"], bob["/v1/rules/team.shared-rule"]; jsonField(t, a, "evidence") == jsonField(t, b, "evidence") {
				t.Errorf("team.shared-rule has the same evidence in both tenants: %s / %s", a, b)
			}
			// A read key of a tenant stays a read key.
			e.Must(403, aliceRead, http.MethodPost, "/v1/rules", `{"rule_id":"x.y","category":"x","text":"x"}`)
			e.Must(200, aliceRead, http.MethodGet, "/v1/rules/amber.p1-rule", "")

			crossByID(t, e)
			crossPending(t, e)

			for _, key := range []string{aliceKey, aliceRead, bobKey} {
				e.Must(403, key, http.MethodGet, "/metrics", "")
			}
			e.Must(401, "", http.MethodGet, "/metrics", "")
			metrics := e.Must(200, opKey, http.MethodGet, "/metrics", "")
			for _, w := range []string{"alice", "bob", "amber", "bravo", "delta", "tenant", "team.shared-rule"} {
				if strings.Contains(metrics, w) {
					t.Errorf("/metrics mentions %q", w)
				}
			}
		})
	}
}

// crossByID: bob's key on alice's rule ids gets, on every rule route, the
// answer of an id that exists nowhere.
func crossByID(t *testing.T, e *tenantEnv) {
	const nowhere = "zzzzz.p1-rule"
	routes := []struct{ method, path, body string }{
		{http.MethodGet, "/v1/rules/%s", ""},
		{http.MethodGet, "/v1/rules/%s/history", ""},
		{http.MethodPatch, "/v1/rules/%s", `{"text":"taken over"}`},
		{http.MethodPost, "/v1/rules/%s/accept", ""},
		{http.MethodPost, "/v1/rules/%s/reject", ""},
		{http.MethodPost, "/v1/corrections", `{"text":"you skipped it","rule_id":"%s"}`},
	}
	for _, id := range []string{"amber.p1-rule", "amber.p2-rule", "amber.pack-rule"} {
		for _, r := range routes {
			path, body := r.path, r.body
			if strings.Contains(path, "%s") {
				path = fmt.Sprintf(path, id)
			} else {
				body = fmt.Sprintf(body, id)
			}
			st, b := e.Call(bobKey, r.method, path, body)
			path2, body2 := strings.ReplaceAll(path, id, nowhere), strings.ReplaceAll(body, id, nowhere)
			st2, b2 := e.Call(bobKey, r.method, path2, body2)
			if st != st2 || strings.ReplaceAll(b, id, nowhere) != b2 || st < 400 {
				t.Errorf("bob %s %s: %d %s; for an id nowhere: %d %s", r.method, path, st, b, st2, b2)
			}
		}
		e.Must(200, aliceKey, http.MethodGet, "/v1/rules/"+id, "")
	}
}

// crossPending: a tenant without confirmations (carol) cannot resolve
// alice's open confirmation by its id: the answer is that of an id that
// exists nowhere.
func crossPending(t *testing.T, e *tenantEnv) {
	var l ConfirmationList
	if err := jsonUnmarshal(e.Must(200, aliceKey, http.MethodGet, "/v1/confirmations", ""), &l); err != nil || len(l.Confirmations) == 0 {
		t.Fatalf("alice has no open confirmation: %v; all: %s", err, e.Must(200, aliceKey, http.MethodGet, "/v1/confirmations?status=all", ""))
	}
	id := strconv.FormatInt(l.Confirmations[0].ID, 10)
	body := `{"action":"reject"}`
	st, b := e.Call(carolKey, http.MethodPost, "/v1/confirmations/"+id, body)
	st2, b2 := e.Call(carolKey, http.MethodPost, "/v1/confirmations/999999", body)
	if st != 404 || st2 != 404 || strings.ReplaceAll(b, id, "999999") != b2 {
		t.Errorf("carol resolving alice's confirmation %s: %d %s; an id nowhere: %d %s", id, st, b, st2, b2)
	}
	if got := maxPending(t, e, carolKey); got != 0 {
		t.Errorf("carol has confirmations up to %d", got)
	}
	e.Must(200, aliceKey, http.MethodPost, "/v1/confirmations/"+id, body)
}

func maxPending(t *testing.T, e *tenantEnv, key string) int64 {
	var l ConfirmationList
	b := e.Must(200, key, http.MethodGet, "/v1/confirmations?status=all&limit=1000", "")
	if err := jsonUnmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	var m int64
	for _, p := range l.Confirmations {
		m = max(m, p.ID)
	}
	return m
}
