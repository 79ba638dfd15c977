// Package mcp is LexSona's Model Context Protocol front end: the tools
// record_correction, classify_correction, get_persona, list_rules,
// explain_rule, list_confirmations, resolve_confirmation, add_rule and
// review_candidate, list_learned and retract_event, each a thin call of one
// use case it declares (Memory, which *memory.Service satisfies) on the
// memory of one tenant, served over stdio (newline-delimited JSON-RPC)
// by `lexsona mcp`.
//
//	err := mcp.Serve(ctx, mcp.Config{Memory: tenant.MemoryOver(db, opts), Embedder: emb, Logger: stderrLog}, os.Stdin, os.Stdout)
//
// An MCP client (Claude Code, Cursor, …) is configured with:
//
//	{"mcpServers": {"lexsona": {"command": "lexsona", "args": ["mcp"]}}}
package mcp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/models"
)

// Name is the server name announced to MCP clients.
const Name = "lexsona"

// Version is the version announced to MCP clients.
const Version = "0.1.0"

const instructions = `LexSona is the user's behavioral memory for coding agents.
When the user corrects you ("don't use sed, use the replace tool"), call record_correction with their words, the instruction they state as one short English sentence (instruction; whatever language they wrote in), and the current project/environment.
At the start of a task, call get_persona for the current context and follow the rules it returns.
classify_correction shows which rule a text would map to without recording it (give it the instruction when you have one: that is what record_correction classifies); explain_rule shows a rule's evidence.
When record_correction answers with decision "confirm" and a pending_id, ask the user which rule they meant and call resolve_confirmation; list_confirmations lists the ones still waiting.
When the user states a rule outright ("always run go vet before you say you are done"), call add_rule; review_candidate accepts or rejects a proposed rule once the user has said which.`

// Config configures a Server. Memory and Embedder are required; every
// other zero field takes its default.
type Config struct {
	// Memory builds the default tenant's memory (tenant.MemoryOver: the use
	// cases over the default store) over Embedder, for the requests and the
	// registry syncs alike: one client, one request at a time. The server
	// never closes it: its store is the caller's.
	Memory tenant.MemoryFunc
	// Embedder is the model the memories classify with; never closed.
	Embedder models.Embedder
	// Tenant is the tenant whose memory the tools work on (the default
	// tenant when empty; a named one needs Tenants, and its memory is
	// opened at the first tool call).
	Tenant string
	// Tenants opens the memories of named tenants (tenant.MemoryOpener);
	// TenantEmbedder opens an embedder of the same kind as Embedder for a
	// named tenant when Embedder is fitted to one store's registries (a
	// models.Fitter: the lexical embedder).
	Tenants        tenant.Opener
	TenantEmbedder func(ctx context.Context) (models.Embedder, error)
	// IdempotencyTTL is how long an idempotency_key of record_correction is
	// remembered (tenant.DefaultIdempotencyTTL, 24 h); while Serve runs,
	// older keys are deleted hourly. Negative: never pruned.
	IdempotencyTTL time.Duration
	// Logger gets the internal errors of tool calls (slog.Default()).
	Logger *slog.Logger
	// Now is the pruner's clock (time.Now); tests set it.
	Now func() time.Time
}

// Server serves LexSona's tools over the memory of one tenant per MCP
// server it makes (see For). Create it with New.
type Server struct {
	cfg  Config
	log  *slog.Logger
	mems Tenants
}

// New builds a Server from cfg; it opens nothing. Errors: EINVALID when
// Memory or Embedder is missing, or for a Tenant that is not a tenant name
// or that is a named tenant without Tenants.
func New(cfg Config) (*Server, error) {
	if cfg.Memory == nil {
		return nil, engine.Errorf(engine.EINVALID, "mcp: Config.Memory is required")
	}
	if cfg.Embedder == nil {
		return nil, engine.Errorf(engine.EINVALID, "mcp: Config.Embedder is required")
	}
	if cfg.Tenant != "" && cfg.Tenant != tenant.Default {
		if err := tenant.CheckName(cfg.Tenant); err != nil {
			return nil, err
		}
		if cfg.Tenants == nil {
			return nil, engine.Errorf(engine.EINVALID, "mcp: tenant %s needs Config.Tenants", cfg.Tenant)
		}
	}
	setDefaults(&cfg)
	emb := tenant.Embedders{Classify: cfg.Embedder, Bulk: cfg.Embedder}
	return over(cfg, tenantMemories{tenant.NewMemories(tenant.MemoriesConfig{
		Default: cfg.Memory(emb), Tenants: cfg.Tenants,
		Model: cfg.Embedder, Shared: emb, TenantEmbedder: cfg.TenantEmbedder,
		Logger: cfg.Logger, Now: cfg.Now,
	})}), nil
}

// over is a server whose tools work on the memories of mems: New gives it
// LexSona's, a test of the tools alone its fakes.
func over(cfg Config, mems Tenants) *Server {
	setDefaults(&cfg)
	return &Server{cfg: cfg, log: cfg.Logger, mems: mems}
}

func setDefaults(cfg *Config) {
	if cfg.IdempotencyTTL == 0 {
		cfg.IdempotencyTTL = tenant.DefaultIdempotencyTTL
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
}

// Close closes the named tenants' memories the tools opened; the default
// tenant's is the caller's. Errors: those of closing them.
func (s *Server) Close() error { return s.mems.Close() }

// Serve serves the Model Context Protocol on in/out (newline-delimited
// JSON-RPC, as `lexsona mcp` does over stdin/stdout) until the client
// disconnects or ctx is cancelled; it then returns nil (or EUNAVAILABLE
// naming the session's error). Keys given to record_correction expire
// after cfg.IdempotencyTTL as over HTTP. The default tenant's store is left
// open for the caller to close; nothing is written to out but protocol
// messages (logs go to cfg.Logger). Errors: New's.
func Serve(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	s, err := New(cfg)
	if err != nil {
		return err
	}
	return s.serve(ctx, in, out)
}

// serve is Serve over s, which it closes when the session ends.
func (s *Server) serve(ctx context.Context, in io.Reader, out io.Writer) error {
	defer s.Close()
	defer s.mems.StartPruner(s.cfg.IdempotencyTTL)()
	frames := newStdioFrames(out)
	pr, pw := io.Pipe()
	go frames.pump(ctx, in, pw)
	// pump bounds every frame (maxFrame); the SDK's own, lower, line limit
	// would end the session on a frame between the two.
	t := &sdkmcp.IOTransport{Reader: pr, Writer: nopWriteCloser{frames}, MaxLineLength: -1}
	err := s.MCPServer().Run(ctx, t)
	pr.Close()
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, sdkmcp.ErrConnectionClosed) {
		return nil
	}
	return engine.Errorf(engine.EUNAVAILABLE, "MCP session ended: %v", err)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// MCPServer returns an MCP server with LexSona's tools over the memory of
// Config.Tenant (the default tenant when empty), for any transport (Serve
// uses stdio; tests use in-memory transports).
func (s *Server) MCPServer() *sdkmcp.Server { return s.For(s.cfg.Tenant) }

// For returns an MCP server whose tools work on tenant name's memory only
// ("" or "default": the default tenant's); a named tenant's memory is
// opened at its first tool call.
func (s *Server) For(name string) *sdkmcp.Server {
	if name == "" {
		name = tenant.Default
	}
	srv := sdkmcp.NewServer(&sdkmcp.Implementation{Name: Name, Title: "LexSona", Version: Version},
		&sdkmcp.ServerOptions{Instructions: instructions, Logger: s.log})
	s.addTools(srv, name)
	return srv
}

// memoryOf is the memory a tool call of tenant name works on. Errors:
// Tenants.Get's.
func (s *Server) memoryOf(ctx context.Context, name string) (Memory, error) {
	return s.mems.Get(ctx, name)
}

// toolError turns an error into what a tool call shows: "code: message",
// with internal errors logged and reduced to "internal: internal error". A
// fault of the database it reports is noted on the default tenant's store.
func (s *Server) toolError(tool string, err error) error {
	s.mems.Default().NoteError(err)
	code := engine.ErrorCode(err)
	if code == engine.EINTERNAL {
		s.log.Error("internal error in MCP tool", "tool", tool, "err", err.Error())
	}
	return errors.New(code + ": " + engine.ErrorMessage(err))
}
