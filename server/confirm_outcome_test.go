package server

import (
	"fmt"
	"testing"

	"github.com/lexsona/lexsona/server/servertest"
	"github.com/lexsona/lexsona/store/storetest"
)

// TestConfirmSaysWhenActivated: over HTTP, of the confirmations accepted
// one by one on a rule, the one that makes it active answers "activated":
// true, and no other does (package mcp's test of the same name does it
// over MCP).
func TestConfirmSaysWhenActivated(t *testing.T) {
	e := newTestEnv(t, nil)
	servertest.ActivatedOnce(t, 12, func() map[string]any {
		id := storetest.MustCreatePending(t, e.db, "search with rg please")
		r := e.post(fmt.Sprintf("/v1/confirmations/%d", id), `{"action":"accept","rule_id":"tool.use-ripgrep"}`)
		mustStatus(t, r, 200)
		var m map[string]any
		r.json(t, &m)
		return m
	})
}
