package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lexsona/lexsona/internal/testenv"
)

// Surfaces of the bad-input catalogue.
const (
	viaHTTP = "http"
	viaCLI  = "cli"
	viaMCP  = "mcp"
)

// MCP outcomes (badCase.want on the mcp surface).
const (
	mcpOK            = 0 // the tool answered
	mcpToolError     = 1 // the tool answered IsError with a message
	mcpProtocolError = 2 // the call itself failed (JSON-RPC error)
)

// badCase is one row of the catalogue: a surface, an input, and what must
// come back — an HTTP status, a CLI exit code or an MCP outcome, and a
// fragment of the message (of the output, for accepted inputs).
type badCase struct {
	name    string
	surface string
	// http: the request. A nil body sends none; chunked hides its length.
	method, path, ctype string
	body                []byte
	header              map[string]string
	chunked             bool
	// cli: the arguments after `lexsona --db F --embedder lexical`.
	args []string
	// mcp: a tool and its arguments.
	tool  string
	targs map[string]any

	want int
	msg  string
	// writes marks an input that is valid and accepted: the database must
	// change (and check, when set, says how); every other row must leave it
	// exactly as it was.
	writes bool
	check  func(t *testing.T, h *catalogue, out string)
}

// catalogue is what the rows run against: the real binary serving HTTP, the
// same binary run as a CLI, and `lexsona mcp` driven by the SDK's client,
// all over one SQLite file.
type catalogue struct {
	bin, db, dir string
	http         *Client
	mcp          *mcp.ClientSession
	mcpLog       *testenv.SyncBuffer
}

func newCatalogue(t *testing.T) *catalogue {
	t.Helper()
	h := &catalogue{bin: MustBuildBinary(t), dir: t.TempDir(), mcpLog: &testenv.SyncBuffer{}}
	h.db = filepath.Join(h.dir, "catalogue.db")
	p := MustStartServe(t, h.bin, h.db)
	if _, err := p.WaitReady(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	h.http = NewClient(p.Base, 4)
	cmd := exec.Command(h.bin, "mcp", "--db", h.db, "--embedder", "lexical")
	cmd.Env = cleanEnv()
	cmd.Stderr = h.mcpLog
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "lexsona-e2e", Version: "1"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connecting to `lexsona mcp`: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	h.mcp = cs
	return h
}

// run runs one row and returns the status or code it got and its message
// (the error message, or the output of an accepted input).
func (h *catalogue) run(t *testing.T, c badCase) (int, string) {
	t.Helper()
	switch c.surface {
	case viaHTTP:
		return h.runHTTP(t, c)
	case viaCLI:
		r := MustRunCLI(t, h.bin, "", append([]string{"--db", h.db, "--embedder", "lexical"}, c.args...)...)
		if r.Code != 0 {
			return r.Code, r.Stderr
		}
		return 0, r.Stdout
	case viaMCP:
		res, err := h.mcp.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.targs})
		if err != nil {
			return mcpProtocolError, err.Error()
		}
		var text strings.Builder
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		if res.IsError {
			return mcpToolError, text.String()
		}
		return mcpOK, text.String()
	}
	t.Fatalf("unknown surface %q", c.surface)
	return 0, ""
}

func (h *catalogue) runHTTP(t *testing.T, c badCase) (int, string) {
	t.Helper()
	var body io.Reader
	if c.body != nil {
		body = bytes.NewReader(c.body)
		if c.chunked {
			body = io.MultiReader(body) // no length known: Transfer-Encoding: chunked
		}
	}
	req, err := http.NewRequest(c.method, h.http.Base+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if c.ctype != "" {
		req.Header.Set("Content-Type", c.ctype)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	resp, err := h.http.HC.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode < 300 {
		return resp.StatusCode, string(b)
	}
	var eb ErrorBody
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&eb); err != nil || eb.Error.Code == "" || eb.Error.Message == "" {
		t.Errorf("error answer %s is not {\"error\": {\"code\", \"message\"}}", clipBody(b))
	}
	return resp.StatusCode, eb.Error.Message
}

// TestBadInputCatalogue runs every row of badInputCases against the real
// binary (HTTP and CLI) and `lexsona mcp`, checks the status or exit code
// and the message, and after each row that the database is exactly as it
// was (rules, events, pending confirmations, texts, embeddings, config,
// idempotency keys, the evidence sums, the last event and the tables) —
// unless the row is a valid input, which must write.
func TestBadInputCatalogue(t *testing.T) {
	h := newCatalogue(t)
	cases := badInputCases(t, h)
	perSurface := map[string]int{}
	for _, c := range cases {
		perSurface[c.surface]++
	}
	if len(cases) < 40 || perSurface[viaHTTP] == 0 || perSurface[viaCLI] == 0 || perSurface[viaMCP] == 0 {
		t.Fatalf("the catalogue has %d rows (%v): want at least 40, on every surface", len(cases), perSurface)
	}
	initial := MustDigest(t, h.db)
	for _, c := range cases {
		t.Run(c.surface+"/"+c.name, func(t *testing.T) {
			before := MustDigest(t, h.db)
			got, msg := h.run(t, c)
			t.Logf("%d %s", got, clip(strings.TrimSpace(msg)))
			if got != c.want {
				t.Errorf("got %d, want %d; message %q", got, c.want, clip(msg))
			}
			if !strings.Contains(msg, c.msg) {
				t.Errorf("message %q does not contain %q", clip(msg), c.msg)
			}
			for _, leak := range []string{"store:", "sql:", "SQLITE", "goroutine ", ".go:"} {
				if c.surface != viaCLI && strings.Contains(msg, leak) {
					t.Errorf("message %q shows internal detail (%q)", clip(msg), leak)
				}
			}
			after := MustDigest(t, h.db)
			switch {
			case !c.writes && after != before:
				t.Errorf("the database changed:\nbefore %+v\nafter  %+v", before, after)
			case c.writes && after == before:
				t.Errorf("an accepted input wrote nothing: %+v", after)
			}
			if c.check != nil && !t.Failed() {
				c.check(t, h, msg)
			}
		})
	}
	if final := MustDigest(t, h.db); final.Tables != initial.Tables {
		t.Errorf("the tables changed: %s, was %s", final.Tables, initial.Tables)
	}
	t.Logf("%d rows: %v", len(cases), perSurface)
}

// lastEvent returns column of the newest event (a fixed list of columns).
func (h *catalogue) lastEvent(t *testing.T, column string) string {
	t.Helper()
	switch column {
	case "user_text", "agent_output", "frame_id":
	default:
		t.Fatalf("lastEvent: column %q", column)
	}
	db := MustOpenReadOnly(t, h.db)
	defer db.Close()
	var v string
	if err := db.QueryRow(fmt.Sprintf("SELECT coalesce(%s, '') FROM persona_events ORDER BY event_id DESC LIMIT 1", column)).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// storedLiterally returns a check that the newest event's column is want.
func storedLiterally(column, want string) func(*testing.T, *catalogue, string) {
	return func(t *testing.T, h *catalogue, _ string) {
		if got := h.lastEvent(t, column); got != want {
			t.Errorf("stored %s is %q (%d bytes), want %q (%d bytes)", column, clip(got), len(got), clip(want), len(want))
		}
	}
}

func clip(s string) string {
	if len(s) > 300 {
		return fmt.Sprintf("%s… (%d bytes)", s[:300], len(s))
	}
	return s
}
