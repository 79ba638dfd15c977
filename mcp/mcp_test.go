package mcp

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSession connects the SDK's own client to s's MCP server over in-memory
// transports.
func mcpSession(t *testing.T, s *Server) *sdkmcp.ClientSession {
	t.Helper()
	ctx := t.Context()
	ct, st := sdkmcp.NewInMemoryTransports()
	ss, err := s.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "lexsona-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect (initialize): %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool and returns its text and structured content.
func callTool(t *testing.T, cs *sdkmcp.ClientSession, name string, args map[string]any) (text string, structured map[string]any, isErr bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdkmcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	for _, c := range res.Content {
		if tc, ok := c.(*sdkmcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &structured)
	}
	return text, structured, res.IsError
}

// TestMCPTools: the tools over LexSona's memory: what the classifier
// decides, the evidence recorded, the persona, the rules, and the
// confirmations' round trip (TestMCPToolArguments checks the tools' own
// work over a fake).
func TestMCPTools(t *testing.T) {
	e := newTestEnv(t, nil)
	cs := mcpSession(t, e.srv)
	for _, c := range []struct {
		name  string
		tool  string
		args  map[string]any
		isErr bool
		check func(t *testing.T, text string, s map[string]any)
	}{
		{"classify", "classify_correction", map[string]any{"text": textAuto, "project": "api"}, false, func(t *testing.T, _ string, s map[string]any) {
			if s["decision"] != "auto_match" || s["rule_id"] != ruleSed {
				t.Errorf("classify: %v", s)
			}
		}},
		{"classify empty", "classify_correction", map[string]any{"text": " "}, true, func(t *testing.T, text string, _ map[string]any) {
			if !strings.HasPrefix(text, "invalid: correction text is empty") {
				t.Errorf("error text %q", text)
			}
		}},
		{"record", "record_correction", map[string]any{"text": textAuto, "project": "api", "rule_id": ruleSed}, false, func(t *testing.T, _ string, s map[string]any) {
			if s["decision"] != "explicit" || s["event_type"] != "reinforcement" {
				t.Errorf("record: %v", s)
			}
		}},
		{"record counterexample", "record_correction", map[string]any{"text": "sed is fine here", "rule_id": ruleSed, "polarity": -1, "context_tags": []string{"migration"}}, false, func(t *testing.T, _ string, s map[string]any) {
			if s["event_type"] != "counterexample" {
				t.Errorf("record: %v", s)
			}
		}},
		{"record unknown rule", "record_correction", map[string]any{"text": "x", "rule_id": "tool.unknown"}, true, func(t *testing.T, text string, _ map[string]any) {
			if !strings.HasPrefix(text, "not_found:") || !strings.Contains(text, "tool.unknown") {
				t.Errorf("error text %q", text)
			}
		}},
		{"record bad scope", "record_correction", map[string]any{"text": textAuto, "project": "my project"}, true, nil},
		{"persona prompt", "get_persona", map[string]any{"project": "api"}, false, func(t *testing.T, text string, _ map[string]any) {
			if !strings.HasPrefix(text, "## LexSona Behavioral Rules (scope: */api/*)") {
				t.Errorf("prompt %q", text)
			}
		}},
		{"persona json", "get_persona", map[string]any{"project": "api", "format": "json", "max": 5}, false, func(t *testing.T, _ string, s map[string]any) {
			if _, ok := s["rules"]; !ok || s["prompt"] == nil {
				t.Errorf("snapshot %v", s)
			}
		}},
		{"list rules", "list_rules", map[string]any{"category": "tool_preference", "limit": 2}, false, func(t *testing.T, _ string, s map[string]any) {
			if rs, _ := s["rules"].([]any); len(rs) != 2 || s["next_after"] == nil {
				t.Errorf("list: %v", s)
			}
		}},
		{"list rules by scope", "list_rules", map[string]any{"project": "api", "context_tags": []string{"go"}}, false, nil},
		{"explain", "explain_rule", map[string]any{"rule_id": ruleSed}, false, func(t *testing.T, _ string, s map[string]any) {
			h, _ := s["history"].([]any)
			r, _ := s["rule"].(map[string]any)
			if len(h) != 3 || r["rule_id"] != ruleSed {
				t.Errorf("explain: %d events, rule %v", len(h), r["rule_id"])
			}
		}},
		{"explain unknown", "explain_rule", map[string]any{"rule_id": "tool.unknown"}, true, nil},
		{"explain malformed", "explain_rule", map[string]any{"rule_id": "NOT AN ID"}, true, nil},
		{"add rule", "add_rule", map[string]any{"rule_id": "tool.run-go-vet", "category": "tool_preference", "text": "Run go vet before saying a Go change is done", "scope": map[string]any{"context_tags": []string{"go"}}}, false, func(t *testing.T, _ string, s map[string]any) {
			if s["rule_id"] != "tool.run-go-vet" || s["severity"] != "should" || s["status"] != "active-eligible" || s["source"] != "user" {
				t.Errorf("add_rule: %v", s)
			}
		}},
		{"add rule again", "add_rule", map[string]any{"rule_id": "tool.run-go-vet", "category": "tool_preference", "text": "x"}, true, func(t *testing.T, text string, _ map[string]any) {
			if !strings.HasPrefix(text, "conflict:") {
				t.Errorf("error text %q", text)
			}
		}},
		{"review a non-candidate", "review_candidate", map[string]any{"rule_id": ruleSed, "action": "accept"}, true, func(t *testing.T, text string, _ map[string]any) {
			if !strings.HasPrefix(text, "conflict: ") || !strings.Contains(text, "not a candidate") {
				t.Errorf("error text %q", text)
			}
		}},
		{"resolve unknown", "resolve_confirmation", map[string]any{"id": 12345, "action": "accept"}, true, nil},
		{"learned", "list_learned", map[string]any{"since": "2000-01-01T00:00:00Z"}, false, func(t *testing.T, _ string, s map[string]any) {
			evs, _ := s["events"].([]any)
			if len(evs) == 0 || evs[0].(map[string]any)["rule_id"] != ruleSed {
				t.Errorf("learned: %v", s)
			}
		}},
		{"retract unknown", "retract_event", map[string]any{"event_id": 987654}, true, func(t *testing.T, text string, _ map[string]any) {
			if !strings.HasPrefix(text, "not_found:") {
				t.Errorf("error text %q", text)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			text, s, isErr := callTool(t, cs, c.tool, c.args)
			if isErr != c.isErr {
				t.Fatalf("isError %v, want %v: %s", isErr, c.isErr, text)
			}
			if isErr && (strings.Contains(text, "store:") || strings.Contains(text, "sql")) {
				t.Errorf("internal detail in a tool error: %s", text)
			}
			if c.check != nil {
				c.check(t, text, s)
			}
		})
	}

	// The confirm band, list_confirmations, then resolve_confirmation.
	_, s, isErr := callTool(t, cs, "record_correction", map[string]any{"text": textConfirm})
	if isErr || s["decision"] != "confirm" {
		t.Fatalf("record in the confirm band: %v", s)
	}
	id := s["pending_id"]
	if got := confirmationIDs(t, cs, map[string]any{}); !slices.Equal(got, []any{id}) {
		t.Errorf("list_confirmations: %v, want the pending %v", got, id)
	}
	_, s, isErr = callTool(t, cs, "resolve_confirmation", map[string]any{"id": id, "action": "accept", "rule_id": "tool.use-ripgrep"})
	if isErr || s["status"] != "accepted" || s["rule_id"] != "tool.use-ripgrep" {
		t.Errorf("resolve: %v", s)
	}
	if got := confirmationIDs(t, cs, map[string]any{"status": "pending"}); len(got) != 0 {
		t.Errorf("list_confirmations after resolving: %v still pending", got)
	}
	if got := confirmationIDs(t, cs, map[string]any{"status": "all", "limit": 10}); !slices.Equal(got, []any{id}) {
		t.Errorf("list_confirmations status all: %v, want %v", got, id)
	}
	for _, args := range []map[string]any{{"limit": -1}, {"limit": 20000}} {
		if text, _, isErr := callTool(t, cs, "list_confirmations", args); !isErr {
			t.Errorf("list_confirmations %v: no error: %s", args, text)
		}
	}
	text, _, isErr := callTool(t, cs, "resolve_confirmation", map[string]any{"id": id, "action": "reject"})
	if !isErr || !strings.Contains(text, "already resolved") {
		t.Errorf("resolving twice: %s", text)
	}
}

// confirmationIDs calls list_confirmations and returns the ids it lists.
func confirmationIDs(t *testing.T, cs *sdkmcp.ClientSession, args map[string]any) []any {
	t.Helper()
	text, s, isErr := callTool(t, cs, "list_confirmations", args)
	if isErr {
		t.Fatalf("list_confirmations %v: %s", args, text)
	}
	list, ok := s["confirmations"].([]any)
	if !ok {
		t.Fatalf("list_confirmations %v: no confirmations list: %v", args, s)
	}
	ids := []any{}
	for _, c := range list {
		p, _ := c.(map[string]any)
		if p["text"] != textConfirm || len(p["candidates"].([]any)) == 0 {
			t.Errorf("confirmation %v", p)
		}
		ids = append(ids, p["id"])
	}
	return ids
}

// TestServeMCP drives Serve (what `lexsona mcp` runs on stdin/stdout)
// through pipes with the SDK's client, then disconnects.
func TestServeMCP(t *testing.T) {
	db := MustOpenStore(t)
	emb := MustLexical(t, db)
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), Config{Memory: memoryOver(db), Embedder: emb, Logger: discardLogger()}, serverIn, serverOut)
		serverOut.Close()
	}()
	cs, err := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "pipe-test", Version: "1"}, nil).
		Connect(t.Context(), &sdkmcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, s, isErr := callTool(t, cs, "classify_correction", map[string]any{"text": textAuto})
	if isErr || s["rule_id"] != ruleSed {
		t.Errorf("classify over the pipe: %v", s)
	}
	cs.Close()
	clientOut.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after the client left: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after the client disconnected")
	}
	// The store is the caller's, still open.
	if err := db.Writable(t.Context()); err != nil {
		t.Errorf("store closed by Serve: %v", err)
	}
}
