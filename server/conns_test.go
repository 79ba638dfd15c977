package server

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/server/servertest"
)

// dialHeld opens n connections to addr that send nothing, closed at the
// test's end.
func dialHeld(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	out := make([]net.Conn, 0, n)
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dialling connection %d: %v", len(out)+1, err)
		}
		t.Cleanup(func() { c.Close() })
		out = append(out, c)
	}
	return out
}

// send writes one request on a new connection and reads its answer.
func send(t *testing.T, addr, method, path string) (*http.Response, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, method+" "+path+" HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
	return readResponse(t, conn)
}

// TestProbesPastIdleConnections: connections that are opened and never
// send a request (more than MaxConns of them, held past the whole test by a
// long header timeout) do not stall the health probes: /healthz and
// /readyz are answered at once on the places kept for them, while an API
// request there is refused with 503 and Retry-After instead of waiting.
func TestProbesPastIdleConnections(t *testing.T) {
	const maxConns, idle = 32, 35 // 3 past the limit, as 515 are past 512
	s, _ := startFake(t, func(c *Config) {
		c.MaxConns, c.ReadHeaderTimeout = maxConns, time.Minute
	}, &servertest.Memory{})
	addr := s.Addr()
	dialHeld(t, addr, idle)
	for _, probe := range []string{"/healthz", "/readyz"} {
		c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := c.Get("http://" + addr + probe)
		if err != nil {
			t.Fatalf("%s with %d idle connections open: %v", probe, idle, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d, want 200", probe, resp.StatusCode)
		}
	}
	resp, body := send(t, addr, http.MethodGet, "/v1/rules")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !resp.Close {
		t.Errorf("an API request past the limit: %d, Retry-After %q, close %v; want 503 with Retry-After, closing", resp.StatusCode, resp.Header.Get("Retry-After"), resp.Close)
	}
	var eb ErrorBody
	response{status: resp.StatusCode, body: []byte(body)}.json(t, &eb)
	if eb.Error.Code != engine.EUNAVAILABLE {
		t.Errorf("code %q, want unavailable", eb.Error.Code)
	}
}

// TestMaxConns: with MaxConns 2 and ProbeConns 1, two kept-alive
// connections hold the places for any request; a third connection is
// answered one probe (or a 503 for anything else) and closed; a probe
// connection that sends nothing loses its place within probeHeaderTimeout;
// once a held connection closes, API requests are served again.
func TestMaxConns(t *testing.T) {
	s, _ := startFake(t, func(c *Config) { c.MaxConns, c.ProbeConns = 2, 1 }, &servertest.Memory{})
	addr := s.Addr()
	var held []net.Conn
	for range 2 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
		if resp, _ := readResponse(t, conn); resp.StatusCode != 200 || resp.Close {
			t.Fatalf("healthz on a held connection: %d, close %v", resp.StatusCode, resp.Close)
		}
		held = append(held, conn)
	}
	if resp, _ := send(t, addr, http.MethodGet, "/v1/rules"); resp.StatusCode != http.StatusServiceUnavailable || !resp.Close {
		t.Errorf("an API request on a third connection: %d, close %v; want 503, closing", resp.StatusCode, resp.Close)
	}
	if resp, _ := send(t, addr, http.MethodHead, "/healthz"); resp.StatusCode != 200 || !resp.Close {
		t.Errorf("a probe on a third connection: %d, close %v; want 200, closing", resp.StatusCode, resp.Close)
	}
	// A probe connection that sends nothing is dropped, and the probe
	// after it is answered.
	dialHeld(t, addr, 1)
	if resp, _ := send(t, addr, http.MethodGet, "/healthz"); resp.StatusCode != 200 {
		t.Errorf("a probe behind an idle probe connection: %d", resp.StatusCode)
	}
	// The server frees the place once it sees the close: until then the
	// answer is the 503 of a probe connection.
	held[0].Close()
	for try := 0; ; try++ {
		resp, _ := send(t, addr, http.MethodGet, "/v1/rules")
		if resp.StatusCode == 200 {
			break
		}
		if resp.StatusCode != http.StatusServiceUnavailable || try == 50 {
			t.Fatalf("an API request once a held connection closed: %d (try %d)", resp.StatusCode, try)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestProbeAddrPastHeldConnections: with ProbeAddr, the health probes have
// a listener of their own: while the API's address holds MaxConns idle
// connections, its probe places and 25 more waiting in the listen backlog
// (held past the test by a long header timeout), /healthz and /readyz on
// ProbeAddr are answered (GET and HEAD), each on a connection closed after
// it, to a Host that is not the server's; anything else there is a 404.
func TestProbeAddrPastHeldConnections(t *testing.T) {
	s, _ := startFake(t, func(c *Config) {
		c.MaxConns, c.ProbeConns, c.ReadHeaderTimeout, c.ProbeAddr = 4, 1, time.Minute, "127.0.0.1:0"
	}, &servertest.Memory{})
	probeAddr := s.ProbeAddr()
	if probeAddr == "" || probeAddr == s.Addr() {
		t.Fatalf("ProbeAddr() = %q beside Addr() %q, want an address of its own", probeAddr, s.Addr())
	}
	dialHeld(t, s.Addr(), 4+1+25)
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		for _, probe := range []string{"/healthz", "/readyz"} {
			conn, err := net.Dial("tcp", probeAddr)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(conn, method+" "+probe+" HTTP/1.1\r\nHost: 10.0.0.7:8081\r\n\r\n")
			resp, _ := readResponse(t, conn)
			conn.Close()
			if resp.StatusCode != http.StatusOK || !resp.Close {
				t.Errorf("%s %s on ProbeAddr: %d, close %v; want 200, closing", method, probe, resp.StatusCode, resp.Close)
			}
		}
	}
	for _, r := range []struct{ method, path string }{{http.MethodGet, "/v1/rules"}, {http.MethodGet, "/metrics"}, {http.MethodPost, "/healthz"}} {
		resp, body := send(t, probeAddr, r.method, r.path)
		var eb ErrorBody
		if resp.StatusCode == http.StatusNotFound {
			response{status: resp.StatusCode, body: []byte(body)}.json(t, &eb)
		}
		if resp.StatusCode != http.StatusNotFound || eb.Error.Code != engine.ENOTFOUND || !resp.Close {
			t.Errorf("%s %s on ProbeAddr: %d %s, close %v; want 404 not_found, closing", r.method, r.path, resp.StatusCode, body, resp.Close)
		}
	}
}
