package server

import (
	"context"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/store"
)

// TestReadyzUnreachableDatabase: when the PostgreSQL server goes away, the
// readiness probe says the database cannot be reached (not that the store
// is unwritable), without naming the server; it is ready again once the
// server answers.
func TestReadyzUnreachableDatabase(t *testing.T) {
	dsn := testenv.PGSchemaURL(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, u.Host)
	u.Host = p.addr
	db, err := store.OpenWith(context.Background(), u.String(), store.Options{Clock: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnv(t, func(c *Config) { c.Memory = memoryOver(db, testBands(t), &c.Now) })
	t.Cleanup(func() { db.Close() })
	mustStatus(t, e.get("/readyz"), 200)

	p.cut()
	r := e.get("/readyz")
	mustStatus(t, r, 503)
	const gone = "the store's database server cannot be reached or does not answer"
	if eb := r.errorBody(t); eb.Message != gone {
		t.Errorf("readyz with the server gone: %q", eb.Message)
	}
	if strings.Contains(string(r.body), p.addr) {
		t.Errorf("readyz names the server: %s", r.body)
	}
	p.resume()
	mustStatus(t, e.get("/readyz"), 200)

	// A server that takes connections and never answers (a host cut off
	// drops packets): the probe's own deadline ends the wait.
	// The first probe meets the dropped connections; the next ones must
	// open new ones, which get no answer until the probe's deadline.
	p.hang()
	for i := range 3 {
		r = e.get("/readyz")
		mustStatus(t, r, 503)
		if eb := r.errorBody(t); eb.Message != gone {
			t.Errorf("readyz %d with the server silent: %q", i, eb.Message)
		}
	}
	p.resume()
	mustStatus(t, e.get("/readyz"), 200)
}

// proxy forwards TCP connections from addr to a target until cut, which
// drops every connection and refuses new ones until resume, or hang, which
// drops them and holds new ones open without an answer.
type proxy struct {
	t      *testing.T
	addr   string
	target string
	mu     sync.Mutex
	down   bool
	silent bool
	conns  []net.Conn
}

func startProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &proxy{t: t, addr: ln.Addr().String(), target: target}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	t.Cleanup(p.cut)
	return p
}

func (p *proxy) serve(c net.Conn) {
	p.mu.Lock()
	if p.silent {
		p.conns = append(p.conns, c)
		p.mu.Unlock()
		return
	}
	if p.down {
		p.mu.Unlock()
		c.Close()
		return
	}
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		p.mu.Unlock()
		c.Close()
		return
	}
	p.conns = append(p.conns, c, s)
	p.mu.Unlock()
	go func() { io.Copy(s, c); s.Close() }()
	io.Copy(c, s)
	c.Close()
}

func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) hang() {
	p.cut()
	p.mu.Lock()
	p.silent = true
	p.mu.Unlock()
}

func (p *proxy) resume() {
	p.mu.Lock()
	p.down, p.silent = false, false
	for _, c := range p.conns { // held by hang
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
}
