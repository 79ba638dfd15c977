package server

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
)

// Bounds of the connections kept for health probes (see connLimiter).
const (
	// DefaultProbeConns is how many connections past MaxConns are accepted
	// for health probes.
	DefaultProbeConns = 16
	// probeHeaderTimeout is how long a probe connection may take to send
	// its request's header: one that sends nothing frees its place fast.
	probeHeaderTimeout = 2 * time.Second
	// probeConnTimeout is how long a probe connection lives in all (a
	// readiness check takes up to 2 s).
	probeConnTimeout = 5 * time.Second
)

// connLimiter is the server's listener: it accepts at most max connections
// for any request, and past them at most probes more, each of which serves
// one request and closes; only a health probe (GET or HEAD /healthz or
// /readyz) is answered on those, anything else is a 503 with Retry-After
// (see probeConnMiddleware). Connections past both wait in the listen
// backlog until one closes. So however many connections clients hold open,
// idle or busy, the probes are answered at once, and a connection that
// holds a probe place without sending its request loses it within
// probeHeaderTimeout.
type connLimiter struct {
	net.Listener
	normal, probe chan struct{} // one token per open connection of each kind
	kind          connKind      // of the probe connections
	done          chan struct{}
	closeOnce     sync.Once
}

// connKind says what a probe connection's requests may be: the probe places
// of the API's listener (anything but a probe is a 503), or the probe
// listener of Config.ProbeAddr (anything but a probe is a 404).
type connKind int

const (
	probePlace connKind = iota + 1
	probeListener
)

func newConnLimiter(ln net.Listener, max, probes int) *connLimiter {
	return &connLimiter{Listener: ln, normal: make(chan struct{}, max), probe: make(chan struct{}, probes), kind: probePlace, done: make(chan struct{})}
}

// newProbeListener is the listener of Config.ProbeAddr: every connection
// is a probe connection (one request, the probe deadlines), at most probes
// open at once. Nothing else is served there, so however many connections
// the API's listener holds or has waiting, a probe here is answered at once.
func newProbeListener(ln net.Listener, probes int) *connLimiter {
	l := newConnLimiter(ln, 0, probes)
	l.kind = probeListener
	return l
}

// acquire waits for a place: a normal one when free, else a probe one. It
// returns the place's semaphore, nil when the listener is closed.
func (l *connLimiter) acquire() chan struct{} {
	select {
	case l.normal <- struct{}{}:
		return l.normal
	default:
	}
	select {
	case l.normal <- struct{}{}:
		return l.normal
	case l.probe <- struct{}{}:
		return l.probe
	case <-l.done:
		return nil
	}
}

// Accept implements net.Listener.
func (l *connLimiter) Accept() (net.Conn, error) {
	sem := l.acquire()
	if sem == nil {
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-sem
		return nil, err
	}
	if sem == l.probe {
		// A normal place may have freed while Accept waited.
		select {
		case l.normal <- struct{}{}:
			<-l.probe
			sem = l.normal
		default:
		}
	}
	lc := &limitedConn{Conn: c, release: func() { <-sem }}
	if sem == l.probe {
		now := time.Now()
		lc.probe, lc.readBy, lc.writeBy = l.kind, now.Add(probeHeaderTimeout), now.Add(probeConnTimeout)
		_ = c.SetReadDeadline(lc.readBy)
		_ = c.SetWriteDeadline(lc.writeBy)
	}
	return lc, nil
}

// Close implements net.Listener.
func (l *connLimiter) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitedConn is an accepted connection holding its place until closed. A
// probe connection's deadlines are never later than readBy (reads) and
// writeBy (writes), whatever the HTTP server sets.
type limitedConn struct {
	net.Conn
	probe           connKind // 0: a connection for any request
	readBy, writeBy time.Time
	once            sync.Once
	release         func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

func clampDeadline(t, by time.Time) time.Time {
	if by.IsZero() || (!t.IsZero() && t.Before(by)) {
		return t
	}
	return by
}

func (c *limitedConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

func (c *limitedConn) SetReadDeadline(t time.Time) error {
	return c.Conn.SetReadDeadline(clampDeadline(t, c.readBy))
}

func (c *limitedConn) SetWriteDeadline(t time.Time) error {
	return c.Conn.SetWriteDeadline(clampDeadline(t, c.writeBy))
}

// probeConnKey is the context key of the connKind of a request that came
// on a probe connection.
type probeConnKey struct{}

// connContext is the http.Server's ConnContext: it marks probe connections.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitedConn); ok && lc.probe != 0 {
		return context.WithValue(ctx, probeConnKey{}, lc.probe)
	}
	return ctx
}

// onProbeListener reports whether req came on the listener of
// Config.ProbeAddr.
func onProbeListener(req *http.Request) bool {
	return req.Context().Value(probeConnKey{}) == probeListener
}

// probeConnMiddleware answers the requests that came on a probe connection
// (past MaxConns, see connLimiter, or on Config.ProbeAddr): a health probe
// is served, anything else is refused — on the API's listener with
// EUNAVAILABLE (503, with Retry-After), on the probe listener with
// ENOTFOUND (404) — and the connection is closed after the response either
// way.
func (s *Server) probeConnMiddleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		kind, _ := req.Context().Value(probeConnKey{}).(connKind)
		if kind == 0 {
			return next(c)
		}
		c.Response().Header().Set(echo.HeaderConnection, "close")
		if (req.Method == http.MethodGet || req.Method == http.MethodHead) && (req.URL.Path == "/healthz" || req.URL.Path == "/readyz") {
			return next(c)
		}
		if kind == probeListener {
			return engine.Errorf(engine.ENOTFOUND, "this address answers the health probes only (GET or HEAD /healthz and /readyz)")
		}
		c.Response().Header().Set("Retry-After", "1")
		return engine.Errorf(engine.EUNAVAILABLE, "the server has %d connections open, its limit (--max-conns): retry later", s.cfg.MaxConns)
	}
}
