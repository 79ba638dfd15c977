package server

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// Health is the answer of GET /healthz and GET /readyz.
type Health struct {
	Status   string `json:"status"`
	Embedder string `json:"embedder,omitempty"`
	Model    string `json:"model,omitempty"`
}

// GET /healthz: 200 while the process serves.
func (s *Server) handleHealthz(c echo.Context) error {
	return c.JSON(http.StatusOK, Health{Status: "ok"})
}

// ready reports nil when the default tenant's store can take writes
// (memory.Service.Writable: not read-only, no full disk or damage met, the
// write lock free, the database server reachable; a full disk or a
// read-only database is tried again every few seconds with a small write,
// so it turns ready without waiting for a request) and the embedder is
// loaded; otherwise an EUNAVAILABLE error saying which is not.
func (s *Server) ready(ctx context.Context) error {
	if s.stopping.Load() {
		return engine.Errorf(engine.EUNAVAILABLE, "shutting down")
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := s.mem.Writable(ctx); err != nil {
		// The store's message may name the file and the driver's error: log
		// it, answer what memory.Unwritable keeps of it (the probe is open
		// to anyone).
		s.log.Warn("readiness: the store is not writable", "err", err.Error())
		return memory.Unwritable(err)
	}
	if id := s.cfg.Embedder.Identity(); id.Dims <= 0 {
		return engine.Errorf(engine.EUNAVAILABLE, "the embedder is not loaded")
	}
	return nil
}

// GET /readyz: 200 when ready, 503 with the reason otherwise.
func (s *Server) handleReadyz(c echo.Context) error {
	if err := s.ready(c.Request().Context()); err != nil {
		return err
	}
	id := s.cfg.Embedder.Identity()
	return c.JSON(http.StatusOK, Health{Status: "ready", Embedder: s.cfg.Embedder.Backend(), Model: id.ID()})
}
