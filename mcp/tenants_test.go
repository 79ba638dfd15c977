package mcp

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/server/servertest"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSessionFor connects a client to the MCP server of tenant name.
func mcpSessionFor(t *testing.T, s *Server, name string) *sdkmcp.ClientSession {
	t.Helper()
	ct, st := sdkmcp.NewInMemoryTransports()
	ss, err := s.For(name).Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "lexsona-test", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// mustTool calls a tool and fails when it answers an error.
func mustTool(t *testing.T, cs *sdkmcp.ClientSession, name string, args map[string]any) (string, map[string]any) {
	t.Helper()
	text, s, isErr := callTool(t, cs, name, args)
	if isErr {
		t.Fatalf("%s %v: %s", name, args, text)
	}
	return text, s
}

// TestTenantsMCP: every MCP tool works on its session's tenant only: what
// alice writes through MCP is invisible to bob's tools and to bob's HTTP
// key, and bob's tools given alice's rule or confirmation ids answer as for
// ids that exist nowhere.
func TestTenantsMCP(t *testing.T) {
	for _, backend := range tenantBackends {
		t.Run(backend, func(t *testing.T) {
			e := newTenantEnv(t, backend)
			alice, bob := mcpSessionFor(t, e.srv, "alice"), mcpSessionFor(t, e.srv, "bob")
			p1 := map[string]any{"project": "p1"}
			with := func(m map[string]any, kv ...any) map[string]any {
				out := map[string]any{}
				for k, v := range m {
					out[k] = v
				}
				for i := 0; i+1 < len(kv); i += 2 {
					out[kv[i].(string)] = kv[i+1]
				}
				return out
			}

			mustTool(t, alice, "add_rule", map[string]any{"rule_id": "amber.p1-rule", "category": "tool_preference",
				"text": "always run the amber checker", "scope": p1})
			_, rec := mustTool(t, alice, "record_correction", with(p1, "text", "you skipped the amber checker", "rule_id", "amber.p1-rule"))
			if rec["decision"] != "explicit" {
				t.Fatalf("alice's explicit correction: %v", rec)
			}
			_, pend := mustTool(t, alice, "record_correction", with(p1, "text", textConfirm))
			pendingID, ok := pend["pending_id"].(float64)
			if !ok {
				t.Fatalf("alice's confirm-band correction: %v", pend)
			}
			_, cand := mustTool(t, alice, "record_correction", with(p1, "text", "always name the kubernetes namespaces in lowercase"))
			created, _ := cand["created_rule"].(map[string]any)
			if created == nil {
				t.Fatalf("alice's new-rule correction: %v", cand)
			}
			candidate := created["rule_id"].(string)
			prompt, _ := mustTool(t, alice, "get_persona", p1)
			_, list := mustTool(t, alice, "list_rules", map[string]any{"limit": 1000})
			if !strings.Contains(fmt.Sprint(list), "amber.p1-rule") || prompt == "" {
				t.Fatalf("alice's own rules: %v", list)
			}
			mustTool(t, alice, "explain_rule", map[string]any{"rule_id": "amber.p1-rule"})

			// bob sees none of it, through MCP or HTTP.
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"list_rules", map[string]any{"limit": 1000}},
				{"get_persona", with(p1, "format", "json")},
				{"get_persona", p1},
				{"list_confirmations", map[string]any{"status": "all"}},
				{"classify_correction", with(p1, "text", "you skipped the amber checker")},
			} {
				text, s := mustTool(t, bob, c.tool, c.args)
				if all := text + fmt.Sprint(s); strings.Contains(all, "amber") {
					t.Errorf("bob's %s %v mentions alice's rules: %s", c.tool, c.args, all)
				}
			}
			if b := e.Must(200, bobKey, http.MethodGet, "/v1/rules?limit=1000", ""); strings.Contains(b, "amber") {
				t.Errorf("bob's HTTP rules mention alice's: %s", b)
			}
			if ids := servertest.RuleIDs(t, e.Must(200, aliceKey, http.MethodGet, "/v1/rules?limit=1000", "")); !slices.Contains(ids, "amber.p1-rule") {
				t.Errorf("alice's HTTP key does not see her MCP rule: %v", ids)
			}

			// bob's tools on alice's ids answer as for ids that exist nowhere.
			const nowhere = "zzzzz.p1-rule"
			for _, c := range []struct {
				tool string
				args func(id string) map[string]any
			}{
				{"explain_rule", func(id string) map[string]any { return map[string]any{"rule_id": id} }},
				{"review_candidate", func(id string) map[string]any { return map[string]any{"rule_id": id, "action": "accept"} }},
				{"record_correction", func(id string) map[string]any { return with(p1, "text", "you skipped it", "rule_id", id) }},
			} {
				for _, id := range []string{"amber.p1-rule", candidate} {
					text, _, isErr := callTool(t, bob, c.tool, c.args(id))
					text2, _, isErr2 := callTool(t, bob, c.tool, c.args(nowhere))
					if !isErr || !isErr2 || strings.ReplaceAll(text, id, nowhere) != text2 {
						t.Errorf("bob's %s on alice's %s: %v %s; on an id nowhere: %v %s", c.tool, id, isErr, text, isErr2, text2)
					}
				}
			}
			text, _, isErr := callTool(t, bob, "resolve_confirmation", map[string]any{"id": pendingID, "action": "reject"})
			text2, _, isErr2 := callTool(t, bob, "resolve_confirmation", map[string]any{"id": 999999, "action": "reject"})
			if !isErr || !isErr2 || strings.ReplaceAll(text, fmt.Sprint(int64(pendingID)), "999999") != text2 {
				t.Errorf("bob resolving alice's confirmation: %v %s; an id nowhere: %v %s", isErr, text, isErr2, text2)
			}
			// alice's own are still hers to resolve and review.
			mustTool(t, alice, "resolve_confirmation", map[string]any{"id": pendingID, "action": "reject"})
			mustTool(t, alice, "review_candidate", map[string]any{"rule_id": candidate, "action": "accept"})
		})
	}
}
