package mcp

import (
	"testing"

	"github.com/lexsona/lexsona/server/servertest"
	"github.com/lexsona/lexsona/store/storetest"
)

// TestConfirmSaysWhenActivated: over MCP, of the confirmations accepted one
// by one on a rule, the one that makes it active answers "activated": true,
// and no other does (server's test of the same name does it over HTTP).
func TestConfirmSaysWhenActivated(t *testing.T) {
	e := newTestEnv(t, nil)
	session := mcpSession(t, e.srv)
	servertest.ActivatedOnce(t, 12, func() map[string]any {
		id := storetest.MustCreatePending(t, e.db, "search with rg please")
		_, m, isErr := callTool(t, session, "resolve_confirmation", map[string]any{"id": id, "action": "accept", "rule_id": "tool.use-ripgrep"})
		if isErr {
			t.Fatalf("resolve_confirmation %d failed", id)
		}
		return m
	})
}
