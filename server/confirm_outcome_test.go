package server

import (
	"fmt"
	"testing"

	"github.com/lexsona/lexsona/store/storetest"
)

// TestConfirmSaysWhenActivated: over HTTP, of the confirmations accepted
// one by one on a rule, the one that makes it active answers "activated":
// true, and no other does (package mcp's test of the same name does it
// over MCP).
func TestConfirmSaysWhenActivated(t *testing.T) {
	accepts := map[string]func(e *testEnv, id int64) map[string]any{
		"http": func(e *testEnv, id int64) map[string]any {
			r := e.post(fmt.Sprintf("/v1/confirmations/%d", id), `{"action":"accept","rule_id":"tool.use-ripgrep"}`)
			mustStatus(e.t, r, 200)
			var m map[string]any
			r.json(e.t, &m)
			return m
		},
	}
	for name, accept := range accepts {
		t.Run(name, func(t *testing.T) {
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
		})
	}
}
