package mcp

import (
	"testing"

	"github.com/lexsona/lexsona/store/storetest"
)

// TestConfirmSaysWhenActivated: over MCP, of the confirmations accepted one
// by one on a rule, the one that makes it active answers "activated": true,
// and no other does (server's test of the same name does it over HTTP).
func TestConfirmSaysWhenActivated(t *testing.T) {
	accept := func(e *testEnv, id int64) map[string]any {
		_, m, isErr := callTool(e.t.(*testing.T), mcpSession(e.t.(*testing.T), e.srv), "resolve_confirmation",
			map[string]any{"id": id, "action": "accept", "rule_id": "tool.use-ripgrep"})
		if isErr {
			e.t.Fatalf("resolve_confirmation %d failed", id)
		}
		return m
	}
	e := newTestEnv(t, nil)
	activated := 0
	for i := 1; i <= 12; i++ {
		m := accept(e, storetest.MustCreatePending(e.t, e.db, "search with rg please"))
		if m["activated"] == true {
			if activated != 0 || m["active"] != true {
				t.Fatalf("accept %d: %v (activated before, at %d, or not active)", i, m, activated)
			}
			activated = i
		}
	}
	if activated == 0 {
		t.Fatalf("no accept said the rule was activated")
	}
}
