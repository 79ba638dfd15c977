package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A prompt the hook spooled for a service that was not running is recorded
// once by that service when it starts: the service drains its spool itself.
func TestServeDrainsTheHooksSpool(t *testing.T) {
	c := newCLI(t)
	c.mustAddRule("tool.pnpm-not-npm", "tool_preference", "must")
	before := c.eventCount("tool.pnpm-not-npm")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	base := "http://127.0.0.1:" + port

	ev := `{"session_id":"s-9","cwd":"` + t.TempDir() + `","hook_event_name":"UserPromptSubmit","prompt":"CORRECT[tool.pnpm-not-npm]: pnpm, not npm"}`
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--db", c.db, "hook", "claude-code", "--server", base}, strings.NewReader(ev), &out, &errb); code != 0 || out.Len() != 0 {
		t.Fatalf("hook: exit %d stdout %q stderr %q", code, out.String(), errb.String())
	}
	if st := c.mustJSON("spool", "status"); st["waiting"] != 1.0 {
		t.Fatalf("with no service up the prompt should wait on the spool: %v", st)
	}

	cmd := exec.Command(MustBuildBinary(t), "serve", "--db", c.db, "--addr", "127.0.0.1:"+port, "--embedder", "lexical")
	cmd.Env = append(os.Environ(), "LEXSONA_REGISTRY=", "LEXSONA_API_KEYS=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := c.mustJSON("spool", "status")
		if st["waiting"] == 0.0 {
			if st["failed"] != 0.0 {
				t.Fatalf("the service refused the spooled prompt: %v", st)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the service did not drain its spool within 30 s: %v", st)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := c.eventCount("tool.pnpm-not-npm"); got != before+1 {
		t.Errorf("events of tool.pnpm-not-npm: %d before, %d after the service drained; want one more", before, got)
	}
}

func TestServesAt(t *testing.T) {
	for _, tc := range []struct {
		addr, server string
		want         bool
	}{
		{"127.0.0.1:8080", "http://127.0.0.1:8080", true},
		{"127.0.0.1:8080", "http://localhost:8080/", true},
		{"127.0.0.1:8080", "http://[::1]:8080", true},
		{"0.0.0.0:8080", "http://127.0.0.1:8080", true},
		{"10.0.0.5:8080", "http://10.0.0.5:8080", true},
		{"127.0.0.1:8080", "http://127.0.0.1:8081", false},
		{"127.0.0.1:8080", "http://10.0.0.5:8080", false},
		{"127.0.0.1:8080", "http://127.0.0.1", false},
		{"not an address", "http://127.0.0.1:8080", false},
	} {
		if got := servesAt(tc.addr)(tc.server); got != tc.want {
			t.Errorf("servesAt(%q)(%q) = %v, want %v", tc.addr, tc.server, got, tc.want)
		}
	}
}
