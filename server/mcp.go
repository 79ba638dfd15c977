package server

import (
	"context"
	"errors"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/memory"
)

// MCPName is the server name announced to MCP clients.
const MCPName = "lexsona"

// Version is the version announced to MCP clients and in the OpenAPI document.
const Version = "0.1.0"

const mcpInstructions = `LexSona is the user's behavioral memory for coding agents.
When the user corrects you ("don't use sed, use the replace tool"), call record_correction with their words and the current project/environment.
At the start of a task, call get_persona for the current context and follow the rules it returns.
classify_correction shows which rule a correction would map to without recording it; explain_rule shows a rule's evidence.
When record_correction answers with decision "confirm" and a pending_id, ask the user which rule they meant and call resolve_confirmation; list_confirmations lists the ones still waiting.
When the user states a rule outright ("always run go vet before you say you are done"), call add_rule; review_candidate accepts or rejects a proposed rule once the user has said which.`

// ServeMCP serves the Model Context Protocol on in/out (newline-delimited
// JSON-RPC, as `lexsona mcp` does over stdin/stdout) until the client
// disconnects or ctx is cancelled; it then returns nil (or the session's
// error). cfg is the same as New's (DB and Embedder required; Addr, keys,
// limits and batching are not used: one client, one request at a time). The
// store is left open for the caller to close; nothing is written to out but
// protocol messages (logs go to cfg.Logger).
func ServeMCP(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	cfg.NoBatching = true
	s, err := New(cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	defer s.startPruner()() // keys given to the record tool expire as over HTTP
	frames := newStdioFrames(out)
	pr, pw := io.Pipe()
	go frames.pump(ctx, in, pw)
	// pump bounds every frame (maxFrame); the SDK's own, lower, line limit
	// would end the session on a frame between the two.
	t := &mcp.IOTransport{Reader: pr, Writer: nopWriteCloser{frames}, MaxLineLength: -1}
	err = s.MCPServer().Run(ctx, t)
	pr.Close()
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return engine.Errorf(engine.EUNAVAILABLE, "MCP session ended: %v", err)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// MCPServer returns an MCP server with LexSona's tools over the memory of
// Config.MCPTenant (the default tenant when empty), for any transport
// (ServeMCP uses stdio; tests use in-memory transports).
func (s *Server) MCPServer() *mcp.Server { return s.MCPServerFor(s.cfg.MCPTenant) }

// MCPServerFor returns an MCP server whose tools work on tenant name's
// memory only ("" or "default": the default tenant's); a named tenant's
// memory is opened at its first tool call.
func (s *Server) MCPServerFor(name string) *mcp.Server {
	if name == "" {
		name = tenant.Default
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: MCPName, Title: "LexSona", Version: Version},
		&mcp.ServerOptions{Instructions: mcpInstructions, Logger: s.log})
	s.addMCPTools(srv, name)
	return srv
}

// mcpMemory is the memory a tool call of tenant name works on. Errors:
// tenantByName's.
func (s *Server) mcpMemory(ctx context.Context, name string) (*memory.Service, error) {
	t, err := s.tenantByName(ctx, name)
	if err != nil {
		return nil, err
	}
	return t.mem, nil
}

// toolError turns an error into what a tool call shows: "code: message",
// with internal errors logged and reduced to "internal: internal error".
func (s *Server) toolError(tool string, err error) error {
	s.db.NoteError(err)
	code := engine.ErrorCode(err)
	if code == engine.EINTERNAL {
		s.log.Error("internal error in MCP tool", "tool", tool, "err", err.Error())
	}
	return errors.New(code + ": " + engine.ErrorMessage(err))
}
