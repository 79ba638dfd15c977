package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/server/servertest"
)

// rawRequest writes head (request line and headers, CRLF-separated, without
// the blank line) and then partial body bytes on a new loopback connection,
// and returns it for the test to wait on.
func rawRequest(t *testing.T, addr, head, partial string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, head+"\r\n\r\n"+partial); err != nil {
		t.Fatal(err)
	}
	return conn
}

// readResponse reads one HTTP response from conn (10 s at most).
func readResponse(t *testing.T, conn net.Conn) (*http.Response, string) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestSlowBodyTimesOut: a client that sends its headers and part of its body
// and then stalls gets 408 once the read deadline passes, with a message that
// shows nothing of the server's internals (no socket addresses).
func TestSlowBodyTimesOut(t *testing.T) {
	s, _ := startFake(t, func(c *Config) { c.ReadTimeout = 300 * time.Millisecond }, &servertest.Memory{})
	addr := s.Addr()
	for _, path := range []string{"/v1/corrections", "/v1/classify", "/v1/registry/sync"} {
		t.Run(path, func(t *testing.T) {
			ct := "application/json"
			if path == "/v1/registry/sync" {
				ct = "application/yaml"
			}
			conn := rawRequest(t, addr, "POST "+path+" HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: "+ct+"\r\nContent-Length: 100", `{"te`)
			resp, body := readResponse(t, conn)
			if resp.StatusCode != http.StatusRequestTimeout {
				t.Fatalf("status %d, want 408; body %s", resp.StatusCode, body)
			}
			if !strings.Contains(body, `"code":"request_timeout"`) {
				t.Errorf("body %s, want code request_timeout", body)
			}
			checkDoc(t, http.MethodPost, path, response{status: resp.StatusCode, header: resp.Header, body: []byte(body)})
			_, port, _ := net.SplitHostPort(addr)
			local := conn.LocalAddr().String()
			for _, leak := range []string{"127.0.0.1", port, local, "tcp", "i/o timeout"} {
				if strings.Contains(body, leak) {
					t.Errorf("the message shows %q: %s", leak, body)
				}
			}
		})
	}
}
