package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

// TestSharedRegistryChangedOutsideTheServer: when the owner's copy of a
// shared registry changes without this server syncing it (another process
// on the store, as `lexsona registry sync` does), the running server (Run
// starts the follower) passes it on to the open receivers within its check
// interval.
func TestSharedRegistryChangedOutsideTheServer(t *testing.T) {
	for _, backend := range tenantBackends {
		t.Run(backend, func(t *testing.T) {
			e := newTenantEnvRun(t, backend, func(c *Config) {
				c.SharedRegistries = []RegistryShare{{Owner: "default", Name: "team", To: []string{"alice"}}}
				c.ShareCheckInterval = 20 * time.Millisecond
			})
			team := func(text string) string {
				return "version: 1\nname: team\nrules:\n  - rule_id: team.use-just\n    category: tool_preference\n    severity: should\n" +
					"    template: \"" + text + "\"\n"
			}
			e.Must(200, opKey, http.MethodPost, "/v1/registry/sync", team("Run tasks with just, not make"), "Content-Type", "application/yaml")
			if b := e.Must(200, aliceKey, http.MethodGet, "/v1/rules/team.use-just", ""); !strings.Contains(b, "Run tasks with just, not make") {
				t.Fatalf("alice's shared rule: %s", b)
			}

			// Another process syncs the owner's registry on the store.
			other, err := store.OpenWith(context.Background(), e.base, store.Options{Clock: time.Now})
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			src := registry.Source{Name: "team", YAML: []byte(team("Run every task with just"))}
			if _, _, err := memory.New(other, MustLexical(t, other), memory.Options{}).SyncRegistry(context.Background(), src, memory.SyncOptions{}); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				b := e.Must(200, aliceKey, http.MethodGet, "/v1/rules/team.use-just", "")
				if strings.Contains(b, "Run every task with just") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("alice's shared rule 10 s after its owner's change outside the server: %s", b)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
