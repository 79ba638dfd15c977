package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

func TestParseRegistryShare(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    RegistryShare
		wantErr string
	}{
		{in: "default/team=alice", want: RegistryShare{Owner: "default", Name: "team", To: []string{"alice"}}},
		{in: " default/team=alice+bob ", want: RegistryShare{Owner: "default", Name: "team", To: []string{"alice", "bob"}}},
		{in: "carol/go-style=bob", want: RegistryShare{Owner: "carol", Name: "go-style", To: []string{"bob"}}},
		{in: "team=alice", wantErr: "want OWNER/NAME=TENANT"},
		{in: "default/team", wantErr: "want OWNER/NAME=TENANT"},
		{in: "default/=alice", wantErr: "want OWNER/NAME=TENANT"},
		{in: "default/team=", wantErr: "want OWNER/NAME=TENANT"},
		{in: "Default/team=alice", wantErr: "lower-case"},
		{in: "default/team=Alice", wantErr: `receiver "Alice"`},
		{in: "alice/team=alice", wantErr: "owns it and cannot receive it"},
		{in: "alice/team=default", wantErr: `receiver "default"`},
	} {
		got, err := ParseRegistryShare(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) || engine.ErrorCode(err) != engine.EINVALID {
				t.Errorf("ParseRegistryShare(%q) = %+v, %v; want an error with %q", c.in, got, err, c.wantErr)
			}
			continue
		}
		if err != nil || got.Owner != c.want.Owner || got.Name != c.want.Name || strings.Join(got.To, "+") != strings.Join(c.want.To, "+") {
			t.Errorf("ParseRegistryShare(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	if err := checkShares([]RegistryShare{{Owner: "default", Name: "team", To: []string{"alice"}}, {Owner: "alice", Name: "x", To: []string{"bob"}}}); err == nil ||
		!strings.Contains(err.Error(), "shares a registry itself") {
		t.Errorf("a tenant both sharing and receiving: %v", err)
	}
}

// TestTenantsSharedRegistry: a registry the default tenant shares with alice
// and carol reaches them (carol, already open, when it is synced; alice
// when she is first opened), follows its owner's changes, cannot be synced
// by them nor its rules edited (403), keeps their evidence their own, and never reaches bob.
func TestTenantsSharedRegistry(t *testing.T) {
	for _, backend := range tenantBackends {
		t.Run(backend, func(t *testing.T) {
			e := newTenantEnv(t, backend, func(c *Config) {
				c.SharedRegistries = []RegistryShare{{Owner: "default", Name: "team", To: []string{"alice", "carol"}}}
			})
			const post, get = http.MethodPost, http.MethodGet
			team := func(text string) string {
				return "version: 1\nname: team\nrules:\n  - rule_id: team.use-just\n    category: tool_preference\n    severity: should\n" +
					"    template: \"" + text + "\"\n    examples: [\"use just not make\"]\n"
			}
			yamlHdr := []string{"Content-Type", "application/yaml"}
			e.Must(404, carolKey, get, "/v1/rules/team.use-just", "") // carol is open before the sync
			e.Must(200, opKey, post, "/v1/registry/sync", team("Run tasks with just, not make"), yamlHdr...)
			for _, key := range []string{aliceKey, carolKey} {
				if b := e.Must(200, key, get, "/v1/rules/team.use-just", ""); !strings.Contains(b, "Run tasks with just, not make") || jsonField(t, b, "registry") != "team" {
					t.Errorf("the shared rule: %s", b)
				}
			}
			e.Must(404, bobKey, get, "/v1/rules/team.use-just", "")

			// The receivers may not sync it, by query or by name:.
			for _, path := range []string{"/v1/registry/sync", "/v1/registry/sync?name=team", "/v1/registry/sync?name=team&dry_run=true"} {
				if b := e.Must(403, aliceKey, post, path, team("Run tasks with make"), yamlHdr...); !strings.Contains(b, "read-only") {
					t.Errorf("alice syncing the shared registry: %s", b)
				}
			}
			// Nor edit its rules.
			e.Must(403, aliceKey, http.MethodPatch, "/v1/rules/team.use-just", `{"text":"Run tasks with make"}`)
			// bob, who does not receive it, may have a registry of that name.
			e.Must(200, bobKey, post, "/v1/registry/sync", team("Run tasks with make"), yamlHdr...)
			e.Must(200, aliceKey, post, "/v1/registry/sync", strings.ReplaceAll(team("Use the amber formatter"), "team", "amberpack"), yamlHdr...)

			// Evidence stays the tenant's.
			e.Must(201, aliceKey, post, "/v1/corrections", `{"text":"use just","rule_id":"team.use-just"}`)
			if a, o := e.Must(200, aliceKey, get, "/v1/rules/team.use-just", ""), e.Must(200, opKey, get, "/v1/rules/team.use-just", ""); jsonField(t, a, "evidence") != "1" || jsonField(t, o, "evidence") != "0" {
				t.Errorf("evidence: alice %s, owner %s", a, o)
			}
			// The owner's change reaches the receivers, and only them.
			e.Must(200, opKey, post, "/v1/registry/sync", team("Run every task with just"), yamlHdr...)
			for _, key := range []string{aliceKey, carolKey} {
				if b := e.Must(200, key, get, "/v1/rules/team.use-just", ""); !strings.Contains(b, "Run every task with just") {
					t.Errorf("the shared rule after its owner's change: %s", b)
				}
			}
			e.Must(200, bobKey, http.MethodPatch, "/v1/rules/team.use-just", `{"text":"Run tasks with make, always"}`)
			if b := e.Must(200, bobKey, get, "/v1/rules/team.use-just", ""); !strings.Contains(b, "Run tasks with make") {
				t.Errorf("bob's own team registry changed: %s", b)
			}
			if b := e.Must(200, aliceKey, get, "/v1/rules/team.use-just", ""); jsonField(t, b, "evidence") != "1" {
				t.Errorf("alice's evidence after the owner's change: %s", b)
			}
		})
	}
}
