// Package server is LexSona's front end for agents and their tools: a JSON
// HTTP API (echo v4) and a Model Context Protocol server over stdio, both thin
// over the same core (store, classifier, embedder).
//
// The HTTP API mirrors the CLI's --json outputs, answers every error with
// {"error": {"code", "message"}} (never internal error text), coalesces
// concurrent embedding work into micro-batches with a bounded queue (429 with
// Retry-After when full), enforces API keys, body limits and timeouts, exports
// Prometheus metrics and an OpenAPI document, and shuts down gracefully.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

// Defaults of Config.
const (
	DefaultAddr              = "127.0.0.1:8080"
	DefaultBodyLimit         = 1 << 20
	DefaultRegistryBodyLimit = registry.MaxFileSize
	DefaultRequestTimeout    = 30 * time.Second
	DefaultSyncTimeout       = 10 * time.Minute
	DefaultShutdownTimeout   = 8 * time.Second
)

// Config configures a Server. DB and Embedder are required; every other
// zero field takes its default.
type Config struct {
	// Addr is the TCP address to listen on (DefaultAddr); "127.0.0.1:0" picks
	// a free port (see Server.Addr).
	Addr string
	// DB is the store. Run closes it when it returns (checkpointing the WAL).
	DB *store.DB
	// Embedder embeds corrections and /v1/embeddings inputs. The server wraps
	// it in a Batcher (unless NoBatching) and never closes it.
	Embedder models.Embedder
	// ClassifierOptions configure the classifier the server builds over DB and
	// the (batched) Embedder.
	ClassifierOptions classifier.Options
	// Classifier, when set, is used as is instead (its embedder is then not
	// batched, unless it was built over a Batcher).
	Classifier *classifier.Classifier
	// APIKeys protect /v1 (see ParseAPIKeys); empty means open.
	APIKeys APIKeys
	// MetricsNeedKey makes /metrics require a (read or write) API key too.
	MetricsNeedKey bool
	// BodyLimit bounds request bodies (DefaultBodyLimit, 1 MiB); POST
	// /v1/registry/sync has RegistryBodyLimit (16 MiB) instead. Larger: 413.
	BodyLimit, RegistryBodyLimit int64
	// RequestTimeout bounds each request's work (DefaultRequestTimeout);
	// SyncTimeout bounds a registry sync (DefaultSyncTimeout).
	RequestTimeout, SyncTimeout time.Duration
	// HTTP server timeouts: ReadHeaderTimeout (10 s), ReadTimeout (60 s),
	// WriteTimeout (SyncTimeout + 30 s), IdleTimeout (120 s).
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// ShutdownTimeout bounds the drain of in-flight requests on shutdown
	// (DefaultShutdownTimeout); the whole shutdown stays under 10 s.
	ShutdownTimeout time.Duration
	// Micro-batching (see Batcher): MaxBatch (32), MaxWait (2 ms; < 0: no
	// wait, batch whatever is queued), QueueSize (1024), BatchWorkers (1).
	// NoBatching embeds every request on its own.
	MaxBatch     int
	MaxWait      time.Duration
	QueueSize    int
	BatchWorkers int
	NoBatching   bool
	// Logger gets access logs and internal errors (slog.Default()).
	Logger *slog.Logger
	// Now is the clock (time.Now); tests set it.
	Now func() time.Time
}

// Server is the HTTP API. Create it with New, then call Run (or use Handler
// with your own http.Server, e.g. httptest).
type Server struct {
	cfg       Config
	log       *slog.Logger
	db        *store.DB
	emb       models.Embedder // what requests embed with (the batcher when batching)
	batcher   *Batcher
	cls       *classifier.Classifier
	keys      *keyring
	metrics   *metrics
	validator *validator.Validate
	echo      *echo.Echo

	routes         map[string]bool // "METHOD /path" of every registered route
	routeBodyLimit map[string]int64
	routeTimeout   map[string]time.Duration

	syncMu   sync.Mutex // one registry sync at a time
	stopping atomic.Bool

	startMu  sync.Mutex
	ln       net.Listener
	httpSrv  *http.Server
	cancel   context.CancelFunc // cancels every request's context (forced shutdown)
	stopOnce sync.Once
	stopErr  error
}

// New builds a Server from cfg without listening. Errors: EINVALID when DB
// or Embedder is missing or a limit is negative.
func New(cfg Config) (*Server, error) {
	if cfg.DB == nil {
		return nil, engine.Errorf(engine.EINVALID, "server: Config.DB is required")
	}
	if cfg.Embedder == nil {
		return nil, engine.Errorf(engine.EINVALID, "server: Config.Embedder is required")
	}
	if cfg.BodyLimit < 0 || cfg.RegistryBodyLimit < 0 || cfg.MaxBatch < 0 || cfg.QueueSize < 0 {
		return nil, engine.Errorf(engine.EINVALID, "server: body limits, MaxBatch and QueueSize must not be negative")
	}
	setDefaults(&cfg)
	s := &Server{
		cfg: cfg, log: cfg.Logger, db: cfg.DB, keys: newKeyring(cfg.APIKeys), validator: newValidator(),
		routes: map[string]bool{}, routeBodyLimit: map[string]int64{}, routeTimeout: map[string]time.Duration{},
	}
	s.emb = cfg.Embedder
	if !cfg.NoBatching {
		s.batcher = NewBatcher(cfg.Embedder, BatcherOptions{
			MaxBatch: cfg.MaxBatch, MaxWait: cfg.MaxWait, QueueSize: cfg.QueueSize, Workers: cfg.BatchWorkers,
		})
		s.emb = s.batcher
	}
	s.metrics = newMetrics(cfg.DB, cfg.Embedder, s.batcher)
	if s.batcher != nil {
		s.batcher.opts.Observe = s.metrics.observeBatch
	}
	s.cls = cfg.Classifier
	if s.cls == nil {
		s.cls = classifier.New(cfg.DB, s.emb, cfg.ClassifierOptions)
	}
	s.echo = s.newEcho()
	return s, nil
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
	def(&c.ReadHeaderTimeout, 10*time.Second)
	def(&c.ReadTimeout, 60*time.Second)
	def(&c.WriteTimeout, c.SyncTimeout+30*time.Second)
	def(&c.IdleTimeout, 120*time.Second)
	def(&c.ShutdownTimeout, DefaultShutdownTimeout)
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Handler returns the API as an http.Handler (for httptest or a custom server).
func (s *Server) Handler() http.Handler { return s.echo }

// Start binds the listener on Config.Addr; Run calls it when needed. Errors:
// EUNAVAILABLE when the address cannot be bound.
func (s *Server) Start() error {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "cannot listen on %s: %v", s.cfg.Addr, err)
	}
	s.ln = ln
	return nil
}

// Addr returns the bound address (e.g. "127.0.0.1:43512"), "" before Start.
func (s *Server) Addr() string {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Run serves until ctx is cancelled, then shuts down gracefully (see
// Shutdown) and returns nil; it returns an error when it cannot listen or
// the server fails. The store is closed when Run returns.
func (s *Server) Run(ctx context.Context) error {
	if err := s.Start(); err != nil {
		s.shutdownStore()
		return err
	}
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	s.startMu.Lock()
	s.cancel = cancelBase
	s.httpSrv = &http.Server{
		Handler: s.echo, ReadHeaderTimeout: s.cfg.ReadHeaderTimeout, ReadTimeout: s.cfg.ReadTimeout,
		WriteTimeout: s.cfg.WriteTimeout, IdleTimeout: s.cfg.IdleTimeout, MaxHeaderBytes: 64 << 10,
		ErrorLog:    slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext: func(net.Listener) context.Context { return base },
	}
	srv, ln := s.httpSrv, s.ln
	s.startMu.Unlock()
	s.log.Info("listening", "addr", ln.Addr().String(), "embedder", s.cfg.Embedder.Backend(),
		"model", s.cfg.Embedder.Identity().ID(), "batching", !s.cfg.NoBatching, "api_keys", !s.keys.empty())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		s.shutdownStore()
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return engine.Errorf(engine.EUNAVAILABLE, "the HTTP server stopped: %v", err)
	case <-ctx.Done():
	}
	err := s.Shutdown(context.Background())
	cancelBase()
	<-errc
	return err
}

// Shutdown stops accepting connections, waits up to ShutdownTimeout (or
// ctx's deadline) for in-flight requests, cancels those still running,
// drains the embedding queue and closes the store. Calling it again returns
// the first result.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopOnce.Do(func() {
		s.stopping.Store(true)
		start := time.Now()
		s.startMu.Lock()
		srv, cancelRequests := s.httpSrv, s.cancel
		s.startMu.Unlock()
		if srv != nil {
			dctx, cancel := context.WithTimeout(ctx, s.cfg.ShutdownTimeout)
			if err := srv.Shutdown(dctx); err != nil {
				s.log.Warn("shutdown: in-flight requests did not finish in time; cancelling them", "err", err.Error())
				cancelRequests()
				srv.Close()
			}
			cancel()
		} else if s.ln != nil {
			s.ln.Close()
		}
		s.stopErr = s.shutdownStore()
		s.log.Info("stopped", "took", time.Since(start).Round(time.Millisecond).String())
	})
	return s.stopErr
}

// shutdownStore drains the batch queue and closes the store.
func (s *Server) shutdownStore() error {
	if s.batcher != nil {
		s.batcher.Close()
	}
	if err := s.db.Close(); err != nil {
		s.log.Error("closing the store", "err", err.Error())
		return engine.Errorf(engine.EUNAVAILABLE, "closing the store failed: see the log")
	}
	return nil
}

// Close releases what New started (the batcher) without touching the store;
// for servers used only through Handler.
func (s *Server) Close() error {
	if s.batcher != nil {
		return s.batcher.Close()
	}
	return nil
}
