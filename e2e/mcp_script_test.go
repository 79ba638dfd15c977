package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPFromAFile: `lexsona mcp < session.jsonl` — the binary reading a
// whole session from a file — answers every request before it exits 0, and
// answers a line that is not JSON with a parse error instead of ending.
func TestMCPFromAFile(t *testing.T) {
	bin := MustBuildBinary(t)
	session := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"file","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{oops`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_persona","arguments":{"project":"api"}}}`,
	}, "\n") + "\n"
	cmd := exec.Command(bin, "mcp", "--db", filepath.Join(t.TempDir(), "mcp.db"), "--embedder", "lexical")
	cmd.Env = cleanEnv()
	cmd.Stdin = strings.NewReader(session)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("lexsona mcp < session: %v\n%s", err, stderr.String())
	}
	got := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q", line)
		}
		key := string(m.ID)
		if m.Error != nil {
			key = fmt.Sprintf("%s error %d", m.ID, m.Error.Code)
		}
		got[key] = true
	}
	for _, want := range []string{"1", "2", "3", "null error -32700"} {
		if !got[want] {
			t.Errorf("no %q among the answers:\n%s\nstderr:\n%s", want, out, stderr.String())
		}
	}
}
