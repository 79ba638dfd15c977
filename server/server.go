// Package server is LexSona's HTTP front end for agents and their tools: a
// JSON HTTP API (echo v4) and the review page, thin over the use cases of
// package memory (it never reaches a store).
//
// The HTTP API mirrors the CLI's --json outputs, answers every error with
// {"error": {"code", "message"}} (never internal error text), coalesces
// concurrent embedding work into micro-batches with a bounded queue (429 with
// Retry-After when full), enforces API keys, body limits and timeouts, exports
// Prometheus metrics and an OpenAPI document (GET /openapi.json), and shuts
// down gracefully.
//
// Serving HTTP (what `lexsona serve` does):
//
//	keys, err := server.ParseAPIKeys(cfg.APIKeys) // "read:KEY1,write:KEY2", from internal/config
//	srv, err := server.New(server.Config{Addr: addr, Memory: core.Front(), Embedder: emb, APIKeys: keys, Logger: log})
//	err = srv.Run(ctx) // until ctx is cancelled (SIGINT/SIGTERM); closes the memories
//
// The server builds each memory over its own embedders (Config.Memory is
// given the admission over the batching queue), so that every request's
// embedding work is queued and bounded together.
//
// Tenants: API keys may name a tenant (see ParseAPIKeys). A tenant's memory
// is a store of its own (Config.Tenants, package internal/tenant: a SQLite
// file or a PostgreSQL schema and role per tenant), opened at its first
// request with the registries in force synced into it; every route works on
// the memory of the caller's tenant only, so no query can reach another
// tenant's rules whatever it filters on. Keys without a tenant, and a
// server without keys, are the default tenant's: the memory of
// Config.Memory.
//
// The Model Context Protocol server is a front end of its own (package mcp).
package server

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/hooks"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
)

// Defaults of Config.
const (
	DefaultAddr              = "127.0.0.1:8080"
	DefaultBodyLimit         = 1 << 20
	DefaultRegistryBodyLimit = registry.MaxFileSize
	DefaultRequestTimeout    = 30 * time.Second
	DefaultSyncTimeout       = 10 * time.Minute
	DefaultShutdownTimeout   = 8 * time.Second
	// DefaultMaxConns bounds the open connections; more wait to be accepted.
	DefaultMaxConns = 512
	// DefaultIdempotencyTTL is how long an Idempotency-Key is remembered
	// (Config.IdempotencyTTL): a retry within it replays the first answer;
	// after it the key is forgotten and the same request would be recorded
	// anew.
	DefaultIdempotencyTTL = tenant.DefaultIdempotencyTTL
	// DefaultShareCheckInterval is how often a running server compares each
	// shared registry, as its owner holds it, with every open receiver's
	// copy (Config.ShareCheckInterval).
	DefaultShareCheckInterval = 10 * time.Second
	// writeMargin is how long past its route's time limit a response may
	// take to be written (a slow reader holds its connection no longer).
	writeMargin = 30 * time.Second
)

// Config configures a Server. Memory and Embedder are required; every
// other zero field takes its default.
type Config struct {
	// Addr is the TCP address to listen on (DefaultAddr); "127.0.0.1:0" picks
	// a free port (see Server.Addr).
	Addr string
	// ProbeAddr, when set, is a TCP address of its own for the health
	// probes (see Server.ProbeAddr): there only GET or HEAD /healthz and
	// /readyz are answered (anything else is a 404), one request per
	// connection, at most ProbeConns connections at once, none of them
	// counted against MaxConns; so the probes are answered at once however
	// many connections hold or wait for the API's address. Empty: the
	// probes share Addr (and its ProbeConns places past MaxConns).
	ProbeAddr string
	// Memory builds the default tenant's memory (tenant.MemoryOver: the use
	// cases over the default store, with the caller's classifier options
	// and clock) over the embedders the server gives it: Embedder admitted
	// (see admission) over the batching queue for requests, the queue for
	// registry syncs. New calls it once; Run closes that memory, and its
	// store (checkpointing the WAL), when it returns.
	Memory tenant.MemoryFunc
	// Embedder embeds corrections and /v1/embeddings inputs: the model the
	// memories classify with. The server wraps it in a Batcher (unless
	// NoBatching) and never closes it.
	Embedder models.Embedder
	// APIKeys protect /v1 (see ParseAPIKeys); empty means open. Keys of
	// named tenants (APIKeys.Tenants) need Tenants.
	APIKeys APIKeys
	// Tenants opens the memories of named tenants (tenant.MemoryOpener over
	// tenant.Stores) over the server's embedders: a caller whose key names
	// a tenant reads and writes that tenant's memory only. Memory is the
	// default tenant's.
	Tenants tenant.Opener
	// TenantEmbedder opens an embedder of the same kind as Embedder, for
	// named tenants when Embedder is corpus-dependent (a models.Fitter: the
	// lexical embedder), whose fit follows one store's registries. Unused
	// otherwise: every tenant shares Embedder.
	TenantEmbedder func(ctx context.Context) (models.Embedder, error)
	// SharedRegistries are registries tenants receive read-only from
	// another tenant (see RegistryShare); every named tenant they name needs
	// a key in APIKeys.
	SharedRegistries []RegistryShare
	// ShareCheckInterval is how often a running server looks for shared
	// registries changed without it (DefaultShareCheckInterval).
	ShareCheckInterval time.Duration
	// HookRoots are the folders under which the Claude Code hook route may
	// read a project's files (.lexsona.yaml, .git/config, language files) to
	// find a session's scope, for callers on loopback only; empty (the
	// default): the route never reads files, and the scope comes from the
	// request (see hookBackend.Scope).
	HookRoots []string
	// HookNotes is what the Claude Code hook route tells the agent about
	// the inbox: hooks.NotesSession (the default, also ""), NotesOff or
	// NotesAsk.
	HookNotes string
	// MetricsNeedKey makes /metrics require a (read or write) API key too.
	// With named tenants it is on, and the key must be a default tenant's:
	// /metrics is the operator's.
	MetricsNeedKey bool
	// BodyLimit bounds request bodies (DefaultBodyLimit, 1 MiB); POST
	// /v1/registry/sync has RegistryBodyLimit (16 MiB) instead. Larger: 413.
	BodyLimit, RegistryBodyLimit int64
	// RequestTimeout bounds each request's work (DefaultRequestTimeout);
	// SyncTimeout bounds a registry sync (DefaultSyncTimeout).
	RequestTimeout, SyncTimeout time.Duration
	// HTTP server timeouts: ReadHeaderTimeout (5 s: how long a connection
	// may hold its place before its request's header has arrived),
	// ReadTimeout (60 s; a body still arriving then is answered 408),
	// WriteTimeout (RequestTimeout + 30 s: how long after its headers a
	// request may take until its response is written; a route with its own
	// time limit, the registry sync, gets that limit + 30 s instead),
	// IdleTimeout (30 s: how long a kept-alive connection may wait for its
	// next request).
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxConns bounds the open connections (DefaultMaxConns). Past it,
	// ProbeConns more (DefaultProbeConns) are accepted for health probes
	// only: each answers one GET or HEAD of /healthz or /readyz, or a 503
	// with Retry-After for anything else, then closes (see connLimiter);
	// past both, new connections wait in the listen backlog until one
	// closes, and a probe sent to Addr then waits behind them: give the
	// probes ProbeAddr to keep them apart.
	MaxConns, ProbeConns int
	// MaxTextsInFlight bounds the texts embedded at once, for /v1/embeddings,
	// classify and corrections together (DefaultMaxTextsInFlight); past it
	// requests are answered 429 with Retry-After. At least
	// MaxEmbeddingInputs. Their tokens are bounded too: the work in flight
	// must be what the model, at its measured rate, embeds within half the
	// RequestTimeout (see tokenBudget).
	MaxTextsInFlight int
	// IdempotencyTTL is how long an Idempotency-Key of POST /v1/corrections is
	// remembered (DefaultIdempotencyTTL, 24 h); while the server runs, older
	// keys are deleted hourly (see tenant.Memories.StartPruner). Negative:
	// never pruned.
	IdempotencyTTL time.Duration
	// ShutdownTimeout bounds the drain of in-flight requests on shutdown
	// (DefaultShutdownTimeout); the whole shutdown stays under 10 s.
	ShutdownTimeout time.Duration
	// Micro-batching (see Batcher): MaxBatch (32), MaxWait (2 ms; < 0: no
	// wait, batch whatever is queued), QueueSize (1024), BatchWorkers (2).
	// NoBatching embeds every request on its own.
	MaxBatch     int
	MaxWait      time.Duration
	QueueSize    int
	BatchWorkers int
	NoBatching   bool
	// AllowedHosts are extra Host names accepted when listening on a
	// loopback address (loopback names and addresses always are); see
	// browserGuard. A port is ignored; anything else that is not a host
	// name makes New fail with EINVALID.
	AllowedHosts []string
	// Logger gets access logs and internal errors (slog.Default()).
	Logger *slog.Logger
	// Now is the clock (time.Now); tests set it.
	Now func() time.Time
}

// Server is the HTTP API. Create it with New, then call Run (or use Handler
// with your own http.Server, e.g. httptest).
type Server struct {
	cfg     Config
	log     *slog.Logger
	emb     models.Embedder // what requests embed with: admit over the batcher (when batching)
	bulkEmb models.Embedder // what a registry sync embeds with (one at a time): the batcher or Embedder
	admit   *admission
	batcher *models.Batcher
	mem     Memory  // the default tenant's
	mems    Tenants // every tenant's, the named ones opened on first use
	keys    *keyring

	metrics   *metrics
	validator *validator.Validate
	echo      *echo.Echo

	routes         map[string]bool // "METHOD /path" of every registered route
	routeBodyLimit map[string]int64
	routeTimeout   map[string]time.Duration

	stopping atomic.Bool
	started  time.Time // when New built the server (Config.Now)

	checkHost   atomic.Bool     // listening on loopback: Host headers are checked
	allowedHost map[string]bool // Config.AllowedHosts, lower-cased

	startMu        sync.Mutex
	ln             net.Listener
	probeLn        net.Listener // of Config.ProbeAddr; nil without one
	httpSrv        *http.Server
	probeSrv       *http.Server       // serves probeLn
	cancel         context.CancelFunc // cancels every request's context (forced shutdown)
	stopBackground func()             // stops the idempotency-key pruner and the share follower (Run starts them)
	stopOnce       sync.Once
	stopErr        error
}

// New builds a Server from cfg without listening. Errors: EINVALID when
// Memory or Embedder is missing, a limit is negative or an allowed host is
// not a host name.
func New(cfg Config) (*Server, error) {
	if cfg.Memory == nil {
		return nil, engine.Errorf(engine.EINVALID, "server: Config.Memory is required")
	}
	s, err := newServer(cfg)
	if err != nil {
		return nil, err
	}
	def := cfg.Memory(tenant.Embedders{Classify: s.emb, Bulk: s.bulkEmb})
	s.serve(def, tenantMemories{tenant.NewMemories(tenant.MemoriesConfig{
		Default: def, Tenants: s.cfg.Tenants,
		Model: s.cfg.Embedder, Shared: tenant.Embedders{Classify: s.emb, Bulk: s.bulkEmb}, TenantEmbedder: s.cfg.TenantEmbedder,
		// A tenant's own embedder is admitted under the same bounds, unbatched.
		Own: func(own models.Embedder) tenant.Embedders {
			return tenant.Embedders{Classify: s.admit.over(own), Bulk: own}
		},
		Shares: s.cfg.SharedRegistries, OpenTimeout: s.cfg.SyncTimeout, Logger: s.cfg.Logger, Now: s.cfg.Now,
	})})
	return s, nil
}

// newServer checks cfg and builds the server's embedders (its batching
// queue and admission), without memories: New gives it LexSona's, a test
// of the front end alone its fakes (see serve). Errors: New's, but for a
// missing Memory.
func newServer(cfg Config) (*Server, error) {
	if cfg.Embedder == nil {
		return nil, engine.Errorf(engine.EINVALID, "server: Config.Embedder is required")
	}
	if cfg.BodyLimit < 0 || cfg.RegistryBodyLimit < 0 || cfg.MaxBatch < 0 || cfg.QueueSize < 0 || cfg.MaxConns < 0 || cfg.ProbeConns < 0 {
		return nil, engine.Errorf(engine.EINVALID, "server: body limits, MaxBatch, QueueSize, MaxConns and ProbeConns must not be negative")
	}
	if cfg.MaxTextsInFlight != 0 && cfg.MaxTextsInFlight < MaxEmbeddingInputs {
		return nil, engine.Errorf(engine.EINVALID, "server: MaxTextsInFlight %d is below %d, the texts one embeddings request may hold", cfg.MaxTextsInFlight, MaxEmbeddingInputs)
	}
	if cfg.APIKeys.Named() && cfg.Tenants == nil {
		return nil, engine.Errorf(engine.EINVALID, "server: API keys name tenants (%s) but Config.Tenants is not set", strings.Join(cfg.APIKeys.TenantNames(), ", "))
	}
	if err := checkShares(cfg.SharedRegistries); err != nil {
		return nil, err
	}
	notes, err := hooks.ParseNotes(cfg.HookNotes)
	if err != nil {
		return nil, err
	}
	cfg.HookNotes = notes
	if err := checkShareKeys(cfg.SharedRegistries, cfg.APIKeys); err != nil {
		return nil, err
	}
	if cfg.APIKeys.Named() {
		cfg.MetricsNeedKey = true
	}
	setDefaults(&cfg)
	s := &Server{
		cfg: cfg, log: cfg.Logger, keys: newKeyring(cfg.APIKeys), validator: newValidator(), started: cfg.Now(),
		routes: map[string]bool{}, routeBodyLimit: map[string]int64{}, routeTimeout: map[string]time.Duration{},
	}
	if s.allowedHost, err = ParseAllowedHosts(cfg.AllowedHosts); err != nil {
		return nil, err
	}
	s.emb = cfg.Embedder
	if !cfg.NoBatching {
		s.batcher = models.NewBatcher(cfg.Embedder, models.BatcherOptions{
			MaxBatch: cfg.MaxBatch, MaxWait: cfg.MaxWait, QueueSize: cfg.QueueSize, Workers: cfg.BatchWorkers,
			Observe: func(n int, waits []time.Duration) { s.metrics.observeBatch(n, waits) },
		})
		s.emb = s.batcher
	}
	s.bulkEmb = s.emb
	s.admit = newAdmission(s.emb, cfg.MaxTextsInFlight, cfg.RequestTimeout/2, time.Now)
	s.emb = s.admit
	return s, nil
}

// serve gives the server the default tenant's memory and every tenant's,
// and builds its metrics and routes over them.
func (s *Server) serve(def Memory, mems Tenants) {
	s.mem, s.mems = def, mems
	s.metrics = newMetrics(s.mem, s.cfg.Embedder, s.batcher, s.admit)
	s.echo = s.newEcho()
}

func setDefaults(c *Config) {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.BodyLimit == 0 {
		c.BodyLimit = DefaultBodyLimit
	}
	if c.RegistryBodyLimit == 0 {
		c.RegistryBodyLimit = DefaultRegistryBodyLimit
	}
	def(&c.RequestTimeout, DefaultRequestTimeout)
	def(&c.SyncTimeout, DefaultSyncTimeout)
	def(&c.ShareCheckInterval, DefaultShareCheckInterval)
	def(&c.ReadHeaderTimeout, 5*time.Second)
	def(&c.ReadTimeout, 60*time.Second)
	def(&c.WriteTimeout, c.RequestTimeout+writeMargin)
	def(&c.IdleTimeout, 30*time.Second)
	def(&c.ShutdownTimeout, DefaultShutdownTimeout)
	if c.MaxConns == 0 {
		c.MaxConns = DefaultMaxConns
	}
	if c.ProbeConns == 0 {
		c.ProbeConns = DefaultProbeConns
	}
	if c.MaxTextsInFlight == 0 {
		c.MaxTextsInFlight = DefaultMaxTextsInFlight
	}
	if c.IdempotencyTTL == 0 {
		c.IdempotencyTTL = DefaultIdempotencyTTL
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}
