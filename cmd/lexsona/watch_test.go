package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/memory"
)

// inSnapshot reports whether rule id is in the persona of project api.
func (c *cli) inSnapshot(id string) bool {
	c.tb.Helper()
	rules, _ := c.mustJSON("snapshot", "--project", "api")["rules"].([]any)
	for _, r := range rules {
		if r.(map[string]any)["rule_id"] == id {
			return true
		}
	}
	return false
}

// TestWatchPollFollowsTheStore: each poll after a write of another store
// handle brings the file in line with the persona at once (one poll), and a
// poll with nothing new writes nothing.
func TestWatchPollFollowsTheStore(t *testing.T) {
	c := newCLI(t)
	c.evidenceOnly()
	const id = "tool.pnpm-not-npm"
	c.mustAddRule(id, "tool_preference", "must", "--project", "api")
	path := filepath.Join(t.TempDir(), "docs", "AGENTS.md")
	a := &app{dbPath: c.db, stdout: io.Discard, stderr: io.Discard}
	defer a.close()
	mem, err := a.openMemory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	w := &watcher{mem: mem, path: path, format: formatForPath(path), req: memory.PersonaRequest{Scope: engine.Scope{Project: "api"}}}
	res, wrote, err := w.poll(t.Context())
	if err != nil || !wrote || !res.Created || res.Rules != 0 {
		t.Fatalf("first poll: %+v %v %v", res, wrote, err)
	}
	fileHas := func() bool {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(string(data), "["+id+"]")
	}
	activated := 0
	for i := 1; i <= 20 && activated == 0; i++ {
		c.mustJSON("record", "--rule", id, "--text", "pnpm, not npm")
		if _, _, err := w.poll(t.Context()); err != nil {
			t.Fatalf("poll after correction %d: %v", i, err)
		}
		if in := c.inSnapshot(id); fileHas() != in {
			t.Fatalf("after correction %d and one poll: file has the rule %v, persona %v", i, !in, in)
		} else if in {
			activated = i
		}
	}
	if activated == 0 {
		t.Fatal("20 corrections never put the rule in the persona")
	}
	past := time.Date(2021, 5, 6, 7, 8, 9, 0, time.UTC)
	os.Chtimes(path, past, past)
	if _, wrote, err := w.poll(t.Context()); err != nil || wrote {
		t.Errorf("poll without a change: wrote %v, %v", wrote, err)
	}
	if st, _ := os.Stat(path); !st.ModTime().Equal(past) {
		t.Errorf("a poll without a change touched the file (mtime %v)", st.ModTime())
	}
	c.mustJSON("rules", "archive", id)
	if _, wrote, err := w.poll(t.Context()); err != nil || !wrote || fileHas() {
		t.Errorf("poll after archiving: wrote %v, %v, file still has the rule %v", wrote, err, fileHas())
	}
}

func TestWatchFormatAndUsage(t *testing.T) {
	for path, want := range map[string]string{
		"AGENTS.md": "agents-md", "x/CLAUDE.md": "claude-md", "x/claude.md": "claude-md",
		".cursor/rules/lexsona.mdc": "cursor-rule", "notes.txt": "agents-md",
	} {
		if got := formatForPath(path); got != want {
			t.Errorf("formatForPath(%q) = %q, want %q", path, got, want)
		}
	}
	c := newCLI(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"watch"},
		{"watch", "--write", filepath.Join(dir, "AGENTS.md"), "--format", "json"},
		{"watch", "--write", filepath.Join(dir, "AGENTS.md"), "--interval", "1ms"},
		{"watch", "--write", filepath.Join(dir, "AGENTS.md"), "--max", "-1"},
	} {
		if code, _, errs := c.run(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
	// A file the watch can never write is the command's error, at once.
	bad := filepath.Join(dir, "BAD.md")
	os.WriteFile(bad, []byte("<!-- lexsona:end -->\n"), 0o644)
	if code, _, errs := c.run("watch", "--write", bad); code != 2 || !strings.Contains(errs, bad) {
		t.Errorf("malformed markers: exit %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "AGENTS.md")); err == nil {
		t.Error("a refused invocation wrote the file")
	}
}

// TestWatchHelperProcess is the lexsona process TestWatchProcess starts: it
// runs main with the arguments in LEXSONA_WATCH_ARGS.
func TestWatchHelperProcess(t *testing.T) {
	raw := testenv.Knob(testenv.WatchArgsEnv)
	if raw == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	os.Args = append([]string{"lexsona"}, args...)
	main()
}

// TestWatchProcess runs `lexsona watch` as its own process while this one
// records corrections into the same store: the file follows, and SIGTERM
// ends the watch with exit 0.
func TestWatchProcess(t *testing.T) {
	c := newCLI(t)
	c.evidenceOnly()
	const id = "tool.pnpm-not-npm"
	c.mustAddRule(id, "tool_preference", "must", "--project", "api")
	path := filepath.Join(t.TempDir(), "CLAUDE.md")
	os.WriteFile(path, []byte("# Project notes\n"), 0o644)
	args, _ := json.Marshal([]string{"--db", c.db, "watch", "--write", path, "--project", "api", "--interval", "50ms"})
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchHelperProcess$")
	cmd.Env = append(os.Environ(), testenv.WatchArgsEnv+"="+string(args))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A watch that never answers is killed, so that the reads below end.
	guard := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer guard.Stop()
	lines := bufio.NewScanner(stdout)
	next := func() string {
		t.Helper()
		if !lines.Scan() {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("watch stopped printing; stderr:\n%s", stderr.String())
		}
		return lines.Text()
	}
	if first := next(); first != "updated "+path+" (0 rules)" {
		t.Fatalf("first line %q", first)
	}
	for range 10 {
		c.mustJSON("record", "--rule", id, "--text", "pnpm, not npm")
	}
	for {
		line := next()
		if !strings.HasPrefix(line, "updated "+path+" (") {
			t.Fatalf("line %q", line)
		}
		if data, _ := os.ReadFile(path); strings.Contains(string(data), "["+id+"]") && strings.Contains(string(data), "reinforced 10 times") {
			if !strings.HasPrefix(string(data), "# Project notes\n\n<!-- lexsona:begin -->\n") {
				t.Errorf("file:\n%s", data)
			}
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() { // what the watch printed before it stopped
	}
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 0 || stderr.Len() != 0 {
		t.Errorf("after SIGTERM: exit %d (%v), stderr %q", code, err, stderr.String())
	}
}
