package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
)

// mcpLine is one line `lexsona mcp` wrote on stdout.
type mcpLine struct {
	raw    string
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// mcpProc is a running `lexsona mcp` with its stdin and its answers.
type mcpProc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan mcpLine // closed when stdout ends
	stderr  *testenv.SyncBuffer
	readErr error
}

// startMCP starts `lexsona mcp` (lexical embedder) over a new database and
// reads its stdout line by line; it is killed at the end of the test.
func startMCP(t *testing.T, bin string) *mcpProc {
	t.Helper()
	cmd := exec.Command(bin, "mcp", "--db", filepath.Join(t.TempDir(), "mcp.db"), "--embedder", "lexical")
	cmd.Env = cleanEnv()
	p := &mcpProc{cmd: cmd, lines: make(chan mcpLine, 64), stderr: &testenv.SyncBuffer{}}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	go func() {
		defer close(p.lines)
		r := bufio.NewReader(out)
		for {
			b, err := r.ReadBytes('\n')
			if s := strings.TrimSpace(string(b)); s != "" {
				l := mcpLine{raw: s}
				if jerr := json.Unmarshal([]byte(s), &l); jerr != nil {
					l.raw = "NOT JSON: " + s
				}
				p.lines <- l
			}
			if err != nil {
				p.readErr = err
				return
			}
		}
	}()
	return p
}

// send writes frame and a newline on stdin.
func (p *mcpProc) send(t *testing.T, frame string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, frame+"\n"); err != nil {
		t.Fatalf("writing a %d-byte frame to lexsona mcp: %v (did it exit?)\nstderr:\n%s", len(frame), err, p.stderr.String())
	}
}

// until returns the lines written before (and including) the answer whose
// id is id, failing the test when stdout ends or 60 s pass first.
func (p *mcpProc) until(t *testing.T, id string) []mcpLine {
	t.Helper()
	var got []mcpLine
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("lexsona mcp closed stdout (%v) before answering id %s; lines: %s\nstderr:\n%s", p.readErr, id, rawLines(got), p.stderr.String())
			}
			got = append(got, l)
			if string(l.ID) == id {
				return got
			}
		case <-timeout:
			t.Fatalf("no answer with id %s within 60 s; lines: %s\nstderr:\n%s", id, rawLines(got), p.stderr.String())
		}
	}
}

func rawLines(ls []mcpLine) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString("\n  " + l.raw[:min(len(l.raw), 300)])
	}
	return b.String()
}

// goTypeLeak matches what would reveal Go types or decoder internals in a
// message.
var goTypeLeak = regexp.MustCompile(`json: cannot unmarshal|\bfloat64\b|\bint64\b|map\[string\]|interface \{\}|Go (struct|value)|\*?mcp\.[A-Z]|\bjsonrpc2\b|server\.[a-z]`)

// TestFaultMCPFrames drives the real `lexsona mcp` over stdio: after
// initialize, frames that are valid JSON but not one JSON-RPC message, a
// frame of invalid UTF-8, non-integral ids and frames of 20 MiB and past
// the 64 MiB frame limit, each followed by a ping. Every bad frame gets one
// JSON-RPC error with id null and the expected code, every ping is
// answered (the process goes on), no id is answered that was not sent as a
// valid id (1.5 is never answered as 1), no line shows Go type names, and
// the process exits 0 when stdin ends.
func TestFaultMCPFrames(t *testing.T) {
	bin := MustBuildBinary(t)
	p := startMCP(t, bin)
	p.send(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"faults","version":"1"}}}`)
	if ls := p.until(t, `"init"`); len(ls) != 1 || ls[0].Error != nil {
		t.Fatalf("initialize: %s", rawLines(ls))
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	bad := []struct {
		name, frame string
		code        int
	}{
		{"null", `null`, -32600},
		{"empty object", `{}`, -32600},
		{"empty array", `[]`, -32600},
		{"number", `42`, -32600},
		{"string", `"ping"`, -32600},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600},
		{"batch of one", `[{"jsonrpc":"2.0","id":900,"method":"ping"}]`, -32600},
		{"batch of two", `[{"jsonrpc":"2.0","id":901,"method":"ping"},{"jsonrpc":"2.0","id":902,"method":"ping"}]`, -32600},
		{"numeric method", `{"jsonrpc":"2.0","id":903,"method":123}`, -32600},
		{"float id 1.5", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600},
		{"float id -0.25", `{"jsonrpc":"2.0","id":-0.25,"method":"ping"}`, -32600},
		{"id past 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":905,"method":"ping"}`, -32600},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":911,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}", -32700},
		{"truncated JSON", `{"jsonrpc":"2.0","id":912,"method":"ping"`, -32700},
		{"20 MiB of junk", "{" + strings.Repeat("x", 20<<20), -32700},
		{"past the 64 MiB frame limit", `{"jsonrpc":"2.0","id":913,"method":"ping","params":{"x":"` + strings.Repeat("y", 65<<20) + `"}}`, -32700},
	}
	var all []mcpLine
	for i, b := range bad {
		ping := fmt.Sprintf(`"ping-%d"`, i)
		start := time.Now()
		p.send(t, b.frame)
		p.send(t, `{"jsonrpc":"2.0","id":`+ping+`,"method":"ping"}`)
		ls := p.until(t, ping)
		all = append(all, ls...)
		if last := ls[len(ls)-1]; last.Error != nil {
			t.Errorf("%s: the ping after it was answered with an error: %s", b.name, last.raw)
		}
		errs := ls[:len(ls)-1]
		if len(errs) != 1 || errs[0].Error == nil || errs[0].Error.Code != b.code || string(errs[0].ID) != "null" {
			t.Errorf("%s: answered %s\nwant one JSON-RPC error %d with id null", b.name, rawLines(errs), b.code)
		}
		t.Logf("%-28s → %s (with its ping in %s)", b.name, strings.TrimSpace(rawLines(errs)), time.Since(start).Round(time.Millisecond))
	}

	// A valid 20 MiB call is read whole and refused as a tool error, with its
	// own id, while a ping sent after it is answered.
	p.send(t, `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"classify_correction","arguments":{"text":"`+
		strings.Repeat("use rg ", (20<<20)/7)+`"}}}`)
	p.send(t, `{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	ls := p.until(t, "7")
	var big *mcpLine
	for i := range ls {
		if string(ls[i].ID) == `"big"` {
			big = &ls[i]
		}
	}
	if big == nil { // answers may come in any order: the ping's first
		ls = append(ls, p.until(t, `"big"`)...)
		big = &ls[len(ls)-1]
	}
	all = append(all, ls...)
	if big == nil || big.Result == nil || !big.Result.IsError || !strings.Contains(big.raw, "too_large") && !strings.Contains(big.raw, "bytes long") {
		t.Errorf("a 20 MiB tools/call: %s, want a tool error saying the text is too long", rawLines(ls))
	}

	valid := map[string]bool{`"init"`: true, `"big"`: true, "7": true, "null": true}
	for i := range bad {
		valid[fmt.Sprintf(`"ping-%d"`, i)] = true
	}
	for _, l := range all {
		if !valid[string(l.ID)] {
			t.Errorf("answered id %s, never sent as a valid id: %.300s", l.ID, l.raw)
		}
		if goTypeLeak.MatchString(l.raw) {
			t.Errorf("a line shows Go type names: %.300s", l.raw)
		}
	}

	p.stdin.Close()
	for l := range p.lines {
		t.Errorf("a line after the last answer: %.300s", l.raw)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("lexsona mcp exited with %v when stdin ended, want 0\nstderr:\n%s", err, p.stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Errorf("lexsona mcp did not exit within 30 s of the end of stdin")
	}
	if goTypeLeak.MatchString(p.stderr.String()) {
		t.Logf("stderr mentions Go types (not sent to the client):\n%s", p.stderr.String())
	}
}
