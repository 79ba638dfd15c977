package e2e

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/internal/tenant/tenanttest"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/store/sqlite"
)

const (
	tenantOpKey    = "op-key-0123456789abcdef"
	tenantAliceKey = "alice-key-0123456789abcd"
	tenantBobKey   = "bob-key-0123456789abcdef"
)

// tenantCall makes one request with a bearer key and returns status and body.
func tenantCall(t *testing.T, base, key, method, path, ctype, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func tenantMust(t *testing.T, want int, base, key, method, path, ctype, body string) string {
	t.Helper()
	st, b := tenantCall(t, base, key, method, path, ctype, body)
	if st != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, st, want, b)
	}
	return b
}

// TestTenantsBinary: `lexsona serve` with an API keys file naming tenants
// and a shared registry, on SQLite and on PostgreSQL: each tenant's writes
// stay in its own store across a restart, another tenant's key gets the
// 404 of an id that exists nowhere, the shared registry reaches its
// receiver read-only, /metrics is the operator's, and `lexsona mcp
// --tenant` serves that tenant's memory.
func TestTenantsBinary(t *testing.T) {
	bin := MustBuildBinary(t)
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "lexsona.db")
			if backend == "postgres" {
				db = testenv.PGSchemaURL(t)
				tenanttest.DropPG(t, db, "alice", "bob")
			}
			keys := filepath.Join(dir, "keys")
			if err := os.WriteFile(keys, []byte("# operator\nwrite:"+tenantOpKey+"\nalice:write:"+tenantAliceKey+"\nbob:write:"+tenantBobKey+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"--api-keys-file", keys, "--share-registry", "default/team=alice"}
			start := func() *Proc {
				p, err := startServe(bin, db, serveOpts{LogDir: dir}, args...)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(p.Kill)
				return p
			}
			p := start()

			const post, get, jsonT, yamlT = http.MethodPost, http.MethodGet, "application/json", "application/yaml"
			tenantMust(t, 201, p.Base, tenantAliceKey, post, "/v1/rules", jsonT,
				`{"rule_id":"amber.rule","category":"tool_preference","text":"always run the amber checker","scope":{"project":"p1"}}`)
			tenantMust(t, 201, p.Base, tenantAliceKey, post, "/v1/corrections", jsonT, `{"text":"you skipped the amber checker","rule_id":"amber.rule"}`)
			team := "version: 1\nname: team\nrules:\n  - rule_id: team.use-just\n    category: tool_preference\n    severity: should\n    template: \"Run tasks with just\"\n    examples: [\"use just\"]\n"
			tenantMust(t, 200, p.Base, tenantOpKey, post, "/v1/registry/sync", yamlT, team)

			check := func(p *Proc) {
				t.Helper()
				if b := tenantMust(t, 200, p.Base, tenantAliceKey, get, "/v1/rules/amber.rule", "", ""); !strings.Contains(b, `"evidence":1`) {
					t.Errorf("alice's rule: %s", b)
				}
				tenantMust(t, 200, p.Base, tenantAliceKey, get, "/v1/rules/team.use-just", "", "")
				for _, id := range []string{"amber.rule", "team.use-just"} {
					st, b := tenantCall(t, p.Base, tenantBobKey, get, "/v1/rules/"+id, "", "")
					st2, b2 := tenantCall(t, p.Base, tenantBobKey, get, "/v1/rules/zzzzz.rule", "", "")
					if st != 404 || st2 != 404 || strings.ReplaceAll(b, id, "zzzzz.rule") != b2 {
						t.Errorf("bob on %s: %d %s; on an id nowhere: %d %s", id, st, b, st2, b2)
					}
				}
				if b := tenantMust(t, 200, p.Base, tenantBobKey, get, "/v1/rules?limit=1000", "", ""); strings.Contains(b, "amber") || strings.Contains(b, "team.use-just") {
					t.Errorf("bob's rules hold alice's or the team's: %s", b)
				}
				if b := tenantMust(t, 200, p.Base, tenantOpKey, get, "/v1/rules?limit=1000", "", ""); strings.Contains(b, "amber") {
					t.Errorf("the default tenant's rules hold alice's: %s", b)
				}
				tenantMust(t, 403, p.Base, tenantAliceKey, post, "/v1/registry/sync", yamlT, team)
				tenantMust(t, 403, p.Base, tenantAliceKey, get, "/metrics", "", "")
				if b := tenantMust(t, 200, p.Base, tenantOpKey, get, "/metrics", "", ""); strings.Contains(b, "alice") || strings.Contains(b, "amber") {
					t.Errorf("/metrics names a tenant or its rule")
				}
			}
			check(p)
			if backend == "sqlite" {
				for _, n := range []string{"alice", "bob"} {
					if _, err := os.Stat(sqlite.TenantPath(db, n)); err != nil {
						t.Errorf("%s's store: %v", n, err)
					}
				}
			}
			p.Stop(t)
			p = start()
			check(p)
			p.Stop(t)

			// lexsona mcp --tenant alice serves alice's memory.
			session := strings.Join([]string{
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"file","version":"1"}}}`,
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"explain_rule","arguments":{"rule_id":"amber.rule"}}}`,
			}, "\n") + "\n"
			for who, want := range map[string]string{"alice": `always run the amber checker`, "bob": `not_found`} {
				cmd := exec.Command(bin, "mcp", "--tenant", who, "--db", db, "--embedder", "lexical")
				cmd.Env = cleanEnv()
				cmd.Stdin = strings.NewReader(session)
				out, err := cmd.Output()
				if err != nil || !strings.Contains(string(out), want) {
					t.Errorf("lexsona mcp --tenant %s: %v\n%s", who, err, out)
				}
			}
		})
	}
}
