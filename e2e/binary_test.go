package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
)

// TestMain removes the binary built for the run.
func TestMain(m *testing.M) {
	code := m.Run()
	testenv.Cleanup()
	os.Exit(code)
}

// MustBuildBinary builds cmd/lexsona once per test run (see testenv).
func MustBuildBinary(tb testing.TB) string { return testenv.MustBuildBinary(tb) }

// cleanEnv is the environment of every process the tests start: the
// caller's, without the LEXSONA_ settings that would change what runs, and
// with LEXSONA_DATA in the run's temp folder (so no calibration file of the
// machine is read).
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LEXSONA_") {
			env = append(env, kv)
		}
	}
	if dir := testenv.BinDir(); dir != "" {
		env = append(env, "LEXSONA_DATA="+filepath.Join(dir, "data"))
	}
	return append(env, extra...)
}

// Proc is a running `lexsona serve`.
type Proc struct {
	Cmd     *exec.Cmd
	Base    string    // http://127.0.0.1:PORT
	Started time.Time // just before the process was started

	logPath string // its stderr
	exited  chan struct{}
	err     error
}

var listeningRE = regexp.MustCompile(`msg=listening addr=(127\.0\.0\.1:\d+)`)

// MustStartServe starts `lexsona serve` on a free 127.0.0.1 port with the
// lexical embedder over db, plus args, and returns once it logs that it
// listens. The process is killed at the end of the test if still running.
func MustStartServe(tb testing.TB, bin, db string, args ...string) *Proc {
	tb.Helper()
	p, err := startServe(bin, db, serveOpts{}, args...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Kill)
	return p
}

// serveOpts are startServe's options: LogDir holds the server's stderr file
// (default: the database's folder), Env adds environment variables, Wait
// bounds the wait for "listening" (default 30 s).
type serveOpts struct {
	LogDir string
	Env    []string
	Wait   time.Duration
}

// startServe starts `lexsona serve` (lexical embedder, a free port on
// 127.0.0.1) over db and returns once it listens, or an error quoting its
// log when it exits first or does not listen in time.
func startServe(bin, db string, o serveOpts, args ...string) (*Proc, error) {
	argv := append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--embedder", "lexical"}, args...)
	cmd := exec.Command(bin, argv...)
	cmd.Env = cleanEnv(o.Env...)
	if o.LogDir == "" {
		o.LogDir = filepath.Dir(db)
	}
	if o.Wait == 0 {
		o.Wait = 30 * time.Second
	}
	// stderr goes straight to a file: the kernel writes it, so the test
	// process — often the load generator — spends nothing on the server's
	// log lines.
	logf, err := os.CreateTemp(o.LogDir, "serve-*.stderr")
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child keeps its own descriptor
	cmd.Stderr = logf
	p := &Proc{Cmd: cmd, logPath: logf.Name(), exited: make(chan struct{})}
	p.Started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	deadline := time.After(o.Wait)
	for tick := time.NewTicker(5 * time.Millisecond); ; {
		if m := listeningRE.FindStringSubmatch(p.Log()); m != nil {
			tick.Stop()
			p.Base = "http://" + m[1]
			return p, nil
		}
		select {
		case <-tick.C:
		case <-p.exited:
			tick.Stop()
			if m := listeningRE.FindStringSubmatch(p.Log()); m != nil {
				p.Base = "http://" + m[1] // it listened, then exited: the caller will see
				return p, nil
			}
			return nil, fmt.Errorf("lexsona %s exited before listening (%v):\n%s", strings.Join(argv, " "), p.err, p.Log())
		case <-deadline:
			tick.Stop()
			p.Kill()
			return nil, fmt.Errorf("lexsona serve did not report listening within %s:\n%s", o.Wait, p.Log())
		}
	}
}

// Log is what the process wrote on stderr so far.
func (p *Proc) Log() string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(its stderr %s cannot be read: %v)", p.logPath, err)
	}
	return string(b)
}

// Kill sends SIGKILL (if the process still runs) and waits for it to exit.
func (p *Proc) Kill() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.Cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// Stop sends SIGTERM and waits up to 15 s for a clean exit.
func (p *Proc) Stop(tb testing.TB) {
	tb.Helper()
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		if p.err != nil {
			tb.Errorf("lexsona serve exited with %v after SIGTERM:\n%s", p.err, p.Log())
		}
	case <-time.After(15 * time.Second):
		p.Kill()
		tb.Errorf("lexsona serve did not exit within 15 s of SIGTERM")
	}
}

// WaitReady polls GET /readyz every 5 ms until it answers 200 or limit has
// passed since the process started, and returns the time from start to the
// first 200 (or an error saying what it last saw).
func (p *Proc) WaitReady(limit time.Duration) (time.Duration, error) {
	c := &http.Client{Timeout: time.Second}
	deadline := p.Started.Add(limit)
	last := "no answer"
	for {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.Base+"/readyz", nil)
		resp, err := c.Do(req)
		cancel()
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(p.Started), nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return time.Since(p.Started), fmt.Errorf("not ready within %s of the start (last: %s)", limit, last)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// CLIResult is what one run of the binary did.
type CLIResult struct {
	Code           int
	Stdout, Stderr string
}

// MustRunCLI runs the binary with args (and stdin, when not empty) and
// returns its exit code and output; it fails the test only when the
// process cannot run at all or takes over 2 minutes.
func MustRunCLI(tb testing.TB, bin string, stdin string, args ...string) CLIResult {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = cleanEnv()
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := CLIResult{Stdout: out.String(), Stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		res.Code = ee.ExitCode()
	} else if err != nil {
		tb.Fatalf("lexsona %s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		tb.Fatalf("lexsona %s: did not finish within 2 minutes", strings.Join(args, " "))
	}
	return res
}
