package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is a bytes.Buffer safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRequestLogNamesTheTenant: with keys that name tenants, each request's
// log line says whose memory it used (the default tenant's included), so
// an operator can tell tenants apart in the log; a request refused before
// its key is known names none.
func TestRequestLogNamesTheTenant(t *testing.T) {
	var logs lockedBuffer
	e := newTenantEnv(t, "sqlite", func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	e.Must(200, aliceKey, http.MethodGet, "/v1/rules/tool.pnpm-not-npm", "")
	e.Must(200, opKey, http.MethodGet, "/v1/rules/tool.use-ripgrep", "")
	e.Must(401, "wrong-key-0123456789abcdef", http.MethodGet, "/v1/rules/tool.no-force-push", "")
	for path, want := range map[string]string{
		"/v1/rules/tool.pnpm-not-npm":  "tenant=alice",
		"/v1/rules/tool.use-ripgrep":   "tenant=default",
		"/v1/rules/tool.no-force-push": "",
	} {
		var line string
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, "msg=request") && strings.Contains(l, "path="+path+" ") {
				line = l
			}
		}
		if line == "" {
			t.Fatalf("no request line for %s in:\n%s", path, logs.String())
		}
		if want == "" && strings.Contains(line, "tenant=") || want != "" && !strings.Contains(line, want) {
			t.Errorf("request line of %s: %s; want %q", path, line, want)
		}
	}
}
