package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/tenant"
)

// mcpSession initializes an MCP session and lists the rules.
const mcpSession = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_rules","arguments":{}}}
`

// TestMCPUnknownTenantRefused: lexsona mcp --tenant NAME serves a tenant
// that has a memory or that the API keys name; any other name (a typo) is
// refused with a message naming it, and nothing is created for it.
func TestMCPUnknownTenantRefused(t *testing.T) {
	c := newCLI(t)
	t.Setenv("LEXSONA_API_KEYS", "")
	t.Setenv("LEXSONA_API_KEYS_FILE", "")
	keys := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(keys, []byte("alice:write:alice-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// bob has a memory already.
	bob, err := tenant.NewStores(c.db, nil, time.Now).OpenStore(context.Background(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	bob.Close()
	tenants := filepath.Join(filepath.Dir(c.db), "tenants")
	for _, tc := range []struct {
		name string
		args []string
		env  string
		code int
		msg  string
	}{
		{"unknown", []string{"--tenant", "zed"}, "", 1, "tenant zed has no memory yet"},
		{"unknown with keys of others", []string{"--tenant", "zed", "--api-keys-file", keys}, "", 1, "no API key names it"},
		{"unknown with keys in the environment", []string{"--tenant", "zed"}, "alice:write:alice-0123456789abcdef", 1, "--api-keys-file"},
		{"named in the keys file", []string{"--tenant", "alice", "--api-keys-file", keys}, "", 0, ""},
		{"named in the environment", []string{"--tenant", "alice"}, "alice:write:alice-0123456789abcdef", 0, ""},
		{"with a memory", []string{"--tenant", "bob"}, "", 0, ""},
		{"default", []string{"--tenant", "default"}, "", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("LEXSONA_API_KEYS", tc.env)
			// A session that calls a tool: the tenant's memory is opened.
			var out, errb bytes.Buffer
			code := run(context.Background(), append([]string{"--db", c.db, "mcp"}, tc.args...), strings.NewReader(mcpSession), &out, &errb)
			stderr := errb.String()
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.msg)
			}
			if tc.code == 0 && !strings.Contains(out.String(), `"id":2`) {
				t.Errorf("the tool call was not answered: %s", out.String())
			}
			if _, err := os.Stat(filepath.Join(tenants, "zed.db")); !os.IsNotExist(err) {
				t.Fatalf("a store was created for zed (stat: %v)", err)
			}
		})
	}
}
