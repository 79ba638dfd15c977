package e2e

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/mcp"
	"github.com/lexsona/lexsona/memory"
)

// TestInternalErrorsNotEchoed closes the store under a running server, so
// that every request that touches it fails inside the store, and checks
// that HTTP answers are the generic {"code":"internal","message":"internal
// error"} (readiness: a fixed 503 message), that MCP tools answer
// "internal: internal error", and that the log has the detail — the
// store's and driver's text — tied to the request id the client got.
func TestInternalErrorsNotEchoed(t *testing.T) {
	srv := MustStartInProc(t, nil)
	c := NewClient(srv.Base, 2)
	c.MustJSON(t, http.MethodPost, "/v1/corrections", map[string]any{"text": "before the failure", "rule_id": catRule}, http.StatusCreated, nil)
	if err := srv.DB.Close(); err != nil {
		t.Fatalf("closing the store under the server: %v", err)
	}
	secrets := []string{"is closed", "sql:", "store:", "sqlite", srv.Path, ".go:", "goroutine"}

	for _, r := range []struct {
		method, path, body string
	}{
		{"POST", "/v1/corrections", `{"text":"after the failure","rule_id":"` + catRule + `"}`},
		{"GET", "/v1/rules", ""},
		{"GET", "/v1/rules/" + catRule + "/history", ""},
		{"GET", "/v1/confirmations", ""},
		{"PATCH", "/v1/rules/" + catRule, `{"topic":"x"}`},
	} {
		var body []byte
		if r.body != "" {
			body = []byte(r.body)
		}
		res := c.MustDo(t, r.method, r.path, "application/json", body)
		var eb ErrorBody
		json.Unmarshal(res.Body, &eb)
		if res.Status != http.StatusInternalServerError || eb.Error.Code != "internal" || eb.Error.Message != "internal error" {
			t.Errorf("%s %s with the store closed: %d %s, want 500 {internal, internal error}", r.method, r.path, res.Status, clipBody(res.Body))
		}
		mustNotShow(t, r.method+" "+r.path, string(res.Body), secrets)
		id := res.Header.Get("X-Request-ID")
		if line := logLine(srv.Log(), "request_id="+id, `msg="internal error"`); !detailRE.MatchString(line) {
			t.Errorf("%s %s: no log line with request_id=%s and the detail; log:\n%s", r.method, r.path, id, clip(srv.Log()))
		}
	}

	res := c.MustDo(t, http.MethodGet, "/readyz", "", nil)
	if res.Status != http.StatusServiceUnavailable || !strings.Contains(string(res.Body), "the store is not writable") {
		t.Errorf("GET /readyz with the store closed: %d %s, want 503 naming the store", res.Status, res.Body)
	}
	mustNotShow(t, "GET /readyz", string(res.Body), secrets)

	// The MCP front end over the same store, logging where the server does.
	m, err := mcp.New(mcp.Config{Memory: tenant.MemoryOver(srv.DB, memory.Options{}), Embedder: srv.Emb,
		Logger: slog.New(slog.NewTextHandler(srv.log, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := sdkmcp.NewInMemoryTransports()
	ss, err := m.MCPServer().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "lexsona-e2e", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"record_correction", map[string]any{"text": "after the failure", "rule_id": catRule}},
		{"explain_rule", map[string]any{"rule_id": catRule}},
		{"list_rules", map[string]any{}},
	} {
		r, err := cs.CallTool(t.Context(), &sdkmcp.CallToolParams{Name: call.tool, Arguments: call.args})
		if err != nil {
			t.Fatalf("%s: %v", call.tool, err)
		}
		var text strings.Builder
		for _, c := range r.Content {
			if tc, ok := c.(*sdkmcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		if !r.IsError || text.String() != "internal: internal error" {
			t.Errorf("MCP %s with the store closed: isError %v %q, want \"internal: internal error\"", call.tool, r.IsError, text.String())
		}
		mustNotShow(t, "MCP "+call.tool, text.String(), secrets)
		if line := logLine(srv.Log(), "tool="+call.tool, "internal error in MCP tool"); !detailRE.MatchString(line) {
			t.Errorf("MCP %s: the log has no line with the detail", call.tool)
		}
	}
}

// detailRE is the store's error text for a closed database, as logged.
var detailRE = regexp.MustCompile(`err="store: [^"]*sql: (database|statement) is closed"`)

func mustNotShow(t *testing.T, what, body string, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(body, s) {
			t.Errorf("%s: the answer shows internal detail %q: %s", what, s, clip(body))
		}
	}
}

// logLine returns the first log line holding all of parts ("" if none).
func logLine(log string, parts ...string) string {
	for _, line := range strings.Split(log, "\n") {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(line, p)
		}
		if ok {
			return line
		}
	}
	return ""
}
