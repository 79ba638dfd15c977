package server

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/server/servertest"
)

// The tenants as the front end sees them, over fake memories: which
// memory a key reaches, what a tenant that cannot be opened answers, and
// what a tenant may not do to a registry it receives.

// tenantFakes are a fake memory per tenant of tenantKeys (carol's cannot
// be opened), each answering GetRule with a rule named after its tenant.
func tenantFakes() (def *servertest.Memory, named map[string]*servertest.Memory) {
	fake := func(name string) *servertest.Memory {
		return &servertest.Memory{GetRuleFn: func(_ context.Context, id string, _ time.Time) (engine.RuleView, error) {
			return engine.RuleView{Rule: engine.Rule{RuleID: id, Text: name + "'s rule", Registry: "team"}}, nil
		}}
	}
	return fake("default"), map[string]*servertest.Memory{"alice": fake("alice"), "bob": fake("bob")}
}

// TestKeysReachTheirTenantsMemory: a request works on the memory of its
// key's tenant and no other; one whose tenant's memory cannot be opened is
// a 503; a read key of a tenant cannot write to it.
func TestKeysReachTheirTenantsMemory(t *testing.T) {
	keys, err := ParseAPIKeys(tenantKeys)
	if err != nil {
		t.Fatal(err)
	}
	def, named := tenantFakes()
	e, _ := newFakeEnv(t, func(c *Config) { c.APIKeys = keys }, def, named)
	for key, want := range map[string]string{opKey: "default", aliceKey: "alice", aliceRead: "alice", bobKey: "bob"} {
		r := e.do(withAuth(get("/v1/rules/tool.x"), "Bearer "+key))
		mustStatus(t, r, http.StatusOK)
		var v engine.RuleView
		r.json(t, &v)
		if v.Text != want+"'s rule" {
			t.Errorf("key of %s reached %q", want, v.Text)
		}
	}
	r := e.do(withAuth(get("/v1/rules/tool.x"), "Bearer "+carolKey))
	mustStatus(t, r, http.StatusServiceUnavailable)
	checkDoc(t, http.MethodGet, "/v1/rules/{id}", r)
	r = e.do(withAuth(post("/v1/rules", `{"rule_id":"tool.x","category":"tool_preference","text":"x"}`), "Bearer "+aliceRead))
	mustStatus(t, r, http.StatusForbidden)
	if slices.Contains(named["alice"].Called(), "AddRule") {
		t.Errorf("alice's read key added a rule")
	}
}

// TestReceivedRegistryIsReadOnly: a tenant cannot sync a registry it
// receives from another, nor edit one of its rules (403, its memory never
// asked to write); a registry it owns it syncs, and the sync is passed on
// to the tenants it shares with.
func TestReceivedRegistryIsReadOnly(t *testing.T) {
	keys, err := ParseAPIKeys(tenantKeys)
	if err != nil {
		t.Fatal(err)
	}
	def, named := tenantFakes()
	shares := []RegistryShare{{Owner: "default", Name: "team", To: []string{"alice"}}}
	e, ft := newFakeEnv(t, func(c *Config) { c.APIKeys, c.SharedRegistries = keys, shares }, def, named)
	ft.received["alice/team"] = true
	yaml := "version: 1\nname: team\nrules: []\n"
	sync := request{method: http.MethodPost, path: "/v1/registry/sync", body: yaml, header: map[string]string{"Content-Type": "application/yaml"}}
	r := e.do(withAuth(sync, "Bearer "+aliceKey))
	mustStatus(t, r, http.StatusForbidden)
	checkDoc(t, http.MethodPost, "/v1/registry/sync", r)
	if eb := r.errorBody(t); !strings.Contains(eb.Message, "registry team is shared with this tenant read-only") {
		t.Errorf("the sync's refusal: %+v", eb)
	}
	r = e.do(withAuth(request{method: http.MethodPatch, path: "/v1/rules/team.x", body: `{"severity":"must"}`}, "Bearer "+aliceKey))
	mustStatus(t, r, http.StatusForbidden)
	if eb := r.errorBody(t); !strings.Contains(eb.Message, "belongs to registry team, shared with this tenant read-only") {
		t.Errorf("the edit's refusal: %+v", eb)
	}
	if got := named["alice"].Called(); slices.Contains(got, "SyncRegistry") || slices.Contains(got, "EditRule") {
		t.Errorf("alice's memory was asked to write: %v", got)
	}
	// The owner syncs it (the fake's sync answers 503: no registry), and
	// a sync the memory refuses is passed on to no one.
	mustStatus(t, e.do(withAuth(sync, "Bearer "+opKey)), http.StatusServiceUnavailable)
	if !slices.Contains(def.Called(), "SyncRegistry") || len(ft.synced) != 0 {
		t.Errorf("the owner's sync: memory calls %v, passed on %v", def.Called(), ft.synced)
	}
}

// TestRequestLogNamesTheTenant: with keys that name tenants, each request's
// log line says whose memory it used (the default tenant's included), so
// an operator can tell tenants apart in the log; a request refused before
// its key is known names none.
func TestRequestLogNamesTheTenant(t *testing.T) {
	var logs testenv.SyncBuffer
	keys, err := ParseAPIKeys(tenantKeys)
	if err != nil {
		t.Fatal(err)
	}
	def, named := tenantFakes()
	e, _ := newFakeEnv(t, func(c *Config) { c.APIKeys, c.Logger = keys, slog.New(slog.NewTextHandler(&logs, nil)) }, def, named)
	mustStatus(t, e.do(withAuth(get("/v1/rules/tool.pnpm-not-npm"), "Bearer "+aliceKey)), 200)
	mustStatus(t, e.do(withAuth(get("/v1/rules/tool.use-ripgrep"), "Bearer "+opKey)), 200)
	mustStatus(t, e.do(withAuth(get("/v1/rules/tool.no-force-push"), "Bearer wrong-key-0123456789abcdef")), 401)
	for path, want := range map[string]string{
		"/v1/rules/tool.pnpm-not-npm":  "tenant=alice",
		"/v1/rules/tool.use-ripgrep":   "tenant=default",
		"/v1/rules/tool.no-force-push": "",
	} {
		var line string
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, "msg=request") && strings.Contains(l, "path="+path+" ") {
				line = l
			}
		}
		if line == "" {
			t.Fatalf("no request line for %s in:\n%s", path, logs.String())
		}
		if want == "" && strings.Contains(line, "tenant=") || want != "" && !strings.Contains(line, want) {
			t.Errorf("request line of %s: %s; want %q", path, line, want)
		}
	}
}
