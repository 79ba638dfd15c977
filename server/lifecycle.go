package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// Handler returns the API as an http.Handler (for httptest or a custom server).
func (s *Server) Handler() http.Handler { return s.echo }

// Start binds the listener on Config.Addr (MaxConns connections, and
// ProbeConns more for health probes: see connLimiter) and the one on
// Config.ProbeAddr when set (see newProbeListener); Run calls it when
// needed. Errors: EUNAVAILABLE when an address cannot be bound.
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
	if s.cfg.ProbeAddr != "" {
		pln, err := net.Listen("tcp", s.cfg.ProbeAddr)
		if err != nil {
			ln.Close()
			return engine.Errorf(engine.EUNAVAILABLE, "cannot listen on %s for the health probes: %v", s.cfg.ProbeAddr, err)
		}
		s.probeLn = newProbeListener(pln, s.cfg.ProbeConns)
	}
	s.ln = newConnLimiter(ln, s.cfg.MaxConns, s.cfg.ProbeConns)
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		s.checkHost.Store(true)
	}
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

// ProbeAddr returns the bound address of Config.ProbeAddr, "" before Start
// or without one.
func (s *Server) ProbeAddr() string {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.probeLn == nil {
		return ""
	}
	return s.probeLn.Addr().String()
}

// Run serves until ctx is cancelled, then shuts down gracefully (see
// Shutdown) and returns nil; it returns an error when it cannot listen or
// the server fails. The memories (their stores) are closed when Run returns.
func (s *Server) Run(ctx context.Context) error {
	if err := s.Start(); err != nil {
		s.shutdownStore()
		return err
	}
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	newHTTP := func() *http.Server {
		return &http.Server{
			Handler: s.echo, ReadHeaderTimeout: s.cfg.ReadHeaderTimeout, ReadTimeout: s.cfg.ReadTimeout,
			WriteTimeout: s.cfg.WriteTimeout, IdleTimeout: s.cfg.IdleTimeout, MaxHeaderBytes: 64 << 10,
			ErrorLog:    slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
			BaseContext: func(net.Listener) context.Context { return base },
			ConnContext: connContext,
		}
	}
	s.startMu.Lock()
	s.cancel = cancelBase
	s.httpSrv = newHTTP()
	if s.probeLn != nil {
		s.probeSrv = newHTTP()
	}
	stopPrune, stopFollow := s.mems.StartPruner(s.cfg.IdempotencyTTL), s.mems.FollowShares(s.cfg.ShareCheckInterval)
	s.stopBackground = func() { stopFollow(); stopPrune() }
	srv, ln, probeSrv, probeLn := s.httpSrv, s.ln, s.probeSrv, s.probeLn
	s.startMu.Unlock()
	s.log.Info("listening", "addr", ln.Addr().String(), "probe_addr", s.ProbeAddr(), "embedder", s.cfg.Embedder.Backend(),
		"model", s.cfg.Embedder.Identity().ID(), "batching", !s.cfg.NoBatching, "api_keys", !s.keys.empty())
	errc := make(chan error, 2)
	serving := 1
	go func() { errc <- srv.Serve(ln) }()
	if probeSrv != nil {
		serving++
		go func() { errc <- probeSrv.Serve(probeLn) }()
	}
	select {
	case err := <-errc:
		// One server stopped on its own: stop the other, then the store.
		srv.Close()
		if probeSrv != nil {
			probeSrv.Close()
		}
		for range serving - 1 {
			<-errc
		}
		s.shutdownStore()
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return engine.Errorf(engine.EUNAVAILABLE, "the HTTP server stopped: %v", err)
	case <-ctx.Done():
	}
	err := s.Shutdown(context.Background())
	cancelBase()
	for range serving {
		<-errc
	}
	return err
}

// Shutdown stops accepting connections, waits up to ShutdownTimeout (or
// ctx's deadline) for in-flight requests, cancels those still running,
// drains the embedding queue and closes the memories (their stores).
// Calling it again returns the first result.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopOnce.Do(func() {
		s.stopping.Store(true)
		start := time.Now()
		s.startMu.Lock()
		srv, probeSrv, cancelRequests := s.httpSrv, s.probeSrv, s.cancel
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
			if s.probeLn != nil {
				s.probeLn.Close()
			}
		}
		// The probes were answered (/readyz: 503, shutting down) while the
		// requests in flight finished.
		if probeSrv != nil {
			probeSrv.Close()
		}
		s.stopErr = s.shutdownStore()
		s.log.Info("stopped", "took", time.Since(start).Round(time.Millisecond).String())
	})
	return s.stopErr
}

// shutdownStore stops the background work (pruner, share follower), drains
// the batch queue and closes every tenant's memory, the default one's
// included.
func (s *Server) shutdownStore() error {
	s.startMu.Lock()
	stopBackground := s.stopBackground
	s.stopBackground = nil
	s.startMu.Unlock()
	if stopBackground != nil {
		stopBackground()
	}
	if s.batcher != nil {
		s.batcher.Close()
	}
	tenantsErr := s.mems.Close()
	if err := errors.Join(s.mem.Close(), tenantsErr); err != nil {
		s.log.Error("closing the store", "err", err.Error())
		return engine.Errorf(engine.EUNAVAILABLE, "closing the store failed: see the log")
	}
	return nil
}

// Close releases what New started (the batcher) and the named tenants'
// memories, without closing the default tenant's; for servers used only
// through Handler.
func (s *Server) Close() error {
	var err error
	if s.batcher != nil {
		err = s.batcher.Close()
	}
	return errors.Join(err, s.mems.Close())
}
