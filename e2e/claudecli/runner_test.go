package claudecli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
)

// sessionTimeout bounds one `claude -p` run; a run against the stand-in
// takes a few seconds.
const sessionTimeout = 90 * time.Second

// lexsonaTimeout bounds one lexsona command a test runs.
const lexsonaTimeout = 60 * time.Second

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.Cleanup()
	os.Exit(code)
}

// Sandbox is one test's world: a tiny Node project, and a home folder, a data
// folder and a LexSona database of its own, so that neither Claude Code nor
// lexsona reads or writes anything of the real user's.
type Sandbox struct {
	ClaudeBin  string // the Claude Code executable
	LexsonaBin string // the lexsona binary, built once per test process
	Project    string // the project folder: package.json, .claude/
	Home       string // $HOME: ~/.claude, ~/.claude.json
	Data       string // $XDG_DATA_HOME
	DB         string // $LEXSONA_DB
	tmp        string // $TMPDIR
	// Env holds more variables for every process the sandbox runs; they
	// come after the fixed ones, and a later value of a variable wins.
	Env []string
}

// NewSandbox makes the folders of a sandbox under the test's temp folder and
// writes the project's package.json. It skips (or fails, see
// testenv.ClaudeBin) without the Claude Code CLI.
func NewSandbox(t *testing.T) *Sandbox {
	t.Helper()
	claude := testenv.ClaudeBin(t)
	root := t.TempDir()
	sb := &Sandbox{
		ClaudeBin:  claude,
		LexsonaBin: testenv.MustBuildBinary(t),
		Project:    filepath.Join(root, "shop-app"),
		Home:       filepath.Join(root, "home"),
		Data:       filepath.Join(root, "data"),
		DB:         filepath.Join(root, "data", "lexsona.db"),
		tmp:        filepath.Join(root, "tmp"),
	}
	for _, d := range []string{sb.Project, sb.Home, sb.Data, sb.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sb.WriteFile(t, "package.json", `{"name": "shop-app", "version": "1.0.0", "private": true}`+"\n")
	// The hooks start drainers that outlive the session: wait for them
	// before the sandbox is removed (cleanups run last-registered first).
	t.Cleanup(func() { sb.lexsonaQuiet("spool", "drain", "--wait", "--quiet") })
	return sb
}

// WriteFile writes a file of the project (rel is relative to it).
func (sb *Sandbox) WriteFile(t *testing.T, rel, data string) {
	t.Helper()
	p := filepath.Join(sb.Project, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ReadFile reads a file of the project; "" when it is absent.
func (sb *Sandbox) ReadFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sb.Project, rel))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// env is the whole environment of the processes the sandbox runs: nothing
// is inherited from the test's, so no variable of the real user's (an API
// key, a CLAUDE_* setting, a LEXSONA_* setting) reaches them.
func (sb *Sandbox) env(extra ...string) []string {
	return append([]string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"SHELL=/bin/bash",
		"LANG=C.UTF-8",
		"HOME=" + sb.Home,
		"XDG_DATA_HOME=" + sb.Data,
		"XDG_CONFIG_HOME=" + filepath.Join(sb.Home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(sb.Home, ".cache"),
		"TMPDIR=" + sb.tmp,
		"LEXSONA_DB=" + sb.DB,
		// The lexical embedder needs no model: these tests are about how
		// Claude Code runs the hooks, not about the classifier.
		"LEXSONA_EMBEDDER=lexical",
		// No LexSona service answers here, so `hooks install` and
		// `uninstall` never choose HTTP hooks for one a test did not start.
		"LEXSONA_ADDR=127.0.0.1:1",
	}, append(sb.Env, extra...)...)
}

// Lexsona runs the lexsona binary with args in the project folder, in the
// sandbox's environment, and returns its stdout; a non-zero exit fails the
// test with its output.
func (sb *Sandbox) Lexsona(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), lexsonaTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, sb.LexsonaBin, args...)
	cmd.Dir = sb.Project
	cmd.Env = sb.env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("lexsona %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// lexsonaQuiet runs lexsona with args in the sandbox, bounded by
// lexsonaTimeout, and ignores how it ends (for cleanups).
func (sb *Sandbox) lexsonaQuiet(args ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), lexsonaTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, sb.LexsonaBin, args...)
	cmd.Dir, cmd.Env = sb.Project, sb.env()
	_ = cmd.Run()
}

// HookCommand is the command of the command hooks the tests install: the
// sandbox's lexsona by its absolute path.
func (sb *Sandbox) HookCommand() string { return sb.LexsonaBin + " hook claude-code" }

// Session is what one `claude -p` run left: its output, its debug log, and
// the requests the stand-in received meanwhile.
type Session struct {
	Stdout, Stderr string
	Debug          string // the --debug-file log
	Err            error  // the run's exit error, nil for exit 0
	Elapsed        time.Duration
	Requests       []Request // every request the stand-in received
	Main           []Request // the agent loop's Messages requests
}

// Claude runs `claude -p prompt --debug-file F` in the project folder
// against the stand-in s, in the sandbox's environment with a dummy API key
// and Claude Code's updates, telemetry and other traffic off, bounded by
// sessionTimeout; args come after the fixed flags. The Bash tool is allowed,
// so a tool call runs unless a hook stops it.
func (sb *Sandbox) Claude(t *testing.T, s *StandIn, prompt string, args ...string) Session {
	t.Helper()
	debug := filepath.Join(t.TempDir(), "claude-debug.log")
	ctx, cancel := context.WithTimeout(context.Background(), sessionTimeout)
	defer cancel()
	argv := append(append([]string{"-p", prompt}, claudeFlags(debug)...), args...)
	cmd := exec.CommandContext(ctx, sb.ClaudeBin, argv...)
	cmd.Dir = sb.Project
	cmd.Env = sb.claudeEnv(s)
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	sess := Session{Stdout: stdout.String(), Stderr: stderr.String(), Err: err, Elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Errorf("claude -p did not end within %s", sessionTimeout)
	}
	if b, rerr := os.ReadFile(debug); rerr == nil {
		sess.Debug = string(b)
	}
	sess.Requests = s.Requests()
	sess.Main = s.MainRequests()
	t.Logf("claude -p %q: %s, exit %v, %d requests (%d of the agent loop)", prompt, sess.Elapsed.Round(time.Millisecond), err, len(sess.Requests), len(sess.Main))
	if u := s.Unknown(); len(u) > 0 {
		t.Logf("the stand-in answered 404 to %v", u)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("claude -p %q: stdout %q, stderr %q; the debug log's hook lines:\n%s", prompt, sess.Stdout, sess.Stderr, sess.hookLog())
		}
	})
	return sess
}

// claudeFlags are the flags of every `claude -p` run after the prompt: the
// debug log written to debug, and the Bash tool allowed, so a tool call runs
// unless a hook stops it.
func claudeFlags(debug string) []string {
	return []string{"--debug-file", debug,
		"--permission-mode", "acceptEdits", "--allowedTools", "Bash",
		"--no-session-persistence"}
}

// claudeEnv is the environment of a `claude -p` run against the stand-in
// s: the sandbox's, with a dummy API key and Claude Code's updates,
// telemetry and other traffic off.
func (sb *Sandbox) claudeEnv(s *StandIn) []string {
	return sb.env(
		"ANTHROPIC_BASE_URL="+s.URL,
		"ANTHROPIC_API_KEY=sk-ant-standin-not-a-key",
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"DISABLE_BUG_COMMAND=1",
	)
}

// maxHookLogLines bounds what hookLog gives.
const maxHookLogLines = 80

// hookLog is the debug log's lines about hooks (Claude Code's own plugins'
// left out) and its errors, at most maxHookLogLines of them.
func (s Session) hookLog() string {
	var out []string
	for _, l := range strings.Split(s.Debug, "\n") {
		if (strings.Contains(l, "Hook") || strings.Contains(l, "[ERROR]")) && !strings.Contains(l, "hooks module cc-plugin") {
			out = append(out, l)
		}
	}
	if len(out) > maxHookLogLines {
		out = append(out[:maxHookLogLines], "...")
	}
	return strings.Join(out, "\n")
}

// DebugLines are the lines of the debug log that contain every one of subs.
func (s Session) DebugLines(subs ...string) []string {
	var out []string
	for _, l := range strings.Split(s.Debug, "\n") {
		ok := true
		for _, sub := range subs {
			ok = ok && strings.Contains(l, sub)
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}
