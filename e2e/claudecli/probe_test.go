package claudecli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Probes are hooks of the tests' own that record each run, so that a test
// can tell which hooks Claude Code ran, with what, and where.
type Probes struct {
	dir string
}

// ProbeRun is one run of a probe hook.
type ProbeRun struct {
	Name       string          `json:"name"`
	Event      json.RawMessage `json:"event"` // the event JSON the hook read on stdin
	Pwd        string          `json:"pwd"`
	ProjectDir string          `json:"project_dir"` // $CLAUDE_PROJECT_DIR
}

// EventName is the run's hook_event_name.
func (r ProbeRun) EventName() string {
	var ev struct {
		Name string `json:"hook_event_name"`
	}
	_ = json.Unmarshal(r.Event, &ev)
	return ev.Name
}

// NewProbes makes a folder for probe scripts and their log.
func NewProbes(t *testing.T) *Probes { return &Probes{dir: t.TempDir()} }

// Path is the path of a file in the probes' folder.
func (p *Probes) Path(name string) string { return filepath.Join(p.dir, name) }

// Command writes an executable bash script named name that appends one JSON
// line (its name, the event it read, its working folder and
// $CLAUDE_PROJECT_DIR) to the probes' log, then runs then; it returns the
// script's path, the command of a hook.
func (p *Probes) Command(t *testing.T, name, then string) string {
	t.Helper()
	path := filepath.Join(p.dir, name+".sh")
	script := fmt.Sprintf(`#!/bin/bash
ev=$(cat)
printf '{"name":"%%s","event":%%s,"pwd":"%%s","project_dir":"%%s"}\n' %q "${ev:-null}" "$PWD" "$CLAUDE_PROJECT_DIR" >> %q
%s
`, name, p.Path("probe.log"), then)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// Runs is every probe run logged so far, in order.
func (p *Probes) Runs(t *testing.T) []ProbeRun {
	t.Helper()
	f, err := os.Open(p.Path("probe.log"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []ProbeRun
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r ProbeRun
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("probe log line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

// Count is how many runs the probe name logged.
func (p *Probes) Count(t *testing.T, name string) int {
	n := 0
	for _, r := range p.Runs(t) {
		if r.Name == name {
			n++
		}
	}
	return n
}

// HookServer is an HTTP hook endpoint on 127.0.0.1 that records each event
// posted to it and answers from answer (keyed by hook_event_name; "" for an
// empty 200).
type HookServer struct {
	URL    string
	mu     sync.Mutex
	events []HookPost
}

// HookPost is one event an HTTP hook posted.
type HookPost struct {
	Event         string
	Authorization string
	Body          []byte
}

// NewHookServer starts a hook server that stops at the test's end.
func NewHookServer(t *testing.T, answer map[string]string) *HookServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &HookServer{URL: "http://" + ln.Addr().String() + "/hook"}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
		var ev struct {
			Name string `json:"hook_event_name"`
		}
		_ = json.Unmarshal(body, &ev)
		h.mu.Lock()
		h.events = append(h.events, HookPost{Event: ev.Name, Authorization: r.Header.Get("Authorization"), Body: body})
		h.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer[ev.Name])
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return h
}

// Posts is every event posted so far, in order.
func (h *HookServer) Posts() []HookPost {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]HookPost(nil), h.events...)
}

// Hook is one hook of a settings file; Group is one matcher group.
type (
	Hook  map[string]any
	Group map[string]any
)

// CommandHook is a command hook running command, with the other fields of
// more (e.g. "async": true, "timeout": 1).
func CommandHook(command string, more ...any) Hook {
	h := Hook{"type": "command", "command": command}
	for i := 0; i+1 < len(more); i += 2 {
		h[more[i].(string)] = more[i+1]
	}
	return h
}

// HookGroup is a group of hooks under matcher ("" for none).
func HookGroup(matcher string, hooks ...Hook) Group {
	g := Group{"hooks": hooks}
	if matcher != "" {
		g["matcher"] = matcher
	}
	return g
}

// WriteSettings writes a Claude Code settings file at path holding hooks
// (event name to its groups) and nothing else.
func WriteSettings(t *testing.T, path string, hooks map[string][]Group) {
	t.Helper()
	b, err := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// requestLines are the lines of a request's messages that contain sub.
func requestLines(r Request, sub string) []string {
	var out []string
	for _, l := range strings.Split(r.Msg.MessagesText(), "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}
