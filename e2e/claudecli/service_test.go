package claudecli

import (
	"encoding/json"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
)

// Helpers of the tests that run LexSona's service (`lexsona serve`) beside
// Claude Code, and read what LexSona recorded and what waits on its spool.

// serviceTimeout bounds a service's start (until /readyz answers 200) and
// its stop.
const serviceTimeout = 30 * time.Second

// recordWait bounds the wait for what a hook captured to be delivered.
const recordWait = 20 * time.Second

// Service is one `lexsona serve` process of the sandbox's lexsona, on the
// sandbox's database.
type Service struct {
	URL    string // http://127.0.0.1:PORT
	Addr   string // 127.0.0.1:PORT
	cmd    *exec.Cmd
	log    *testenv.SyncBuffer
	exited chan struct{}
}

// freeAddr is a 127.0.0.1 address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// StartService runs `lexsona serve --addr addr` in the project folder, in
// the sandbox's environment (its LEXSONA_DB and embedder), and waits at most
// serviceTimeout for GET /readyz to answer 200; it fails the test when the
// service exits first or is not ready in time. It is stopped at the test's
// end.
func (sb *Sandbox) StartService(t *testing.T, addr string) *Service {
	t.Helper()
	svc := &Service{URL: "http://" + addr, Addr: addr, log: &testenv.SyncBuffer{}, exited: make(chan struct{})}
	svc.cmd = exec.Command(sb.LexsonaBin, "serve", "--addr", addr)
	svc.cmd.Dir = sb.Project
	svc.cmd.Env = sb.env()
	svc.cmd.Stdout, svc.cmd.Stderr = svc.log, svc.log
	if err := svc.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { svc.cmd.Wait(); close(svc.exited) }()
	t.Cleanup(func() { svc.Stop(t) })
	start := time.Now()
	client := &http.Client{Timeout: time.Second}
	for deadline := start.Add(serviceTimeout); time.Now().Before(deadline); {
		select {
		case <-svc.exited:
			t.Fatalf("lexsona serve --addr %s exited before it was ready: %v\n%s", addr, svc.cmd.ProcessState, svc.log.String())
		case <-time.After(50 * time.Millisecond):
		}
		if resp, err := client.Get(svc.URL + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Logf("lexsona serve at %s ready after %s", addr, time.Since(start).Round(time.Millisecond))
				return svc
			}
		}
	}
	t.Fatalf("lexsona serve at %s not ready within %s:\n%s", addr, serviceTimeout, svc.log.String())
	return nil
}

// Stop sends the service SIGTERM and waits at most serviceTimeout for it to
// exit (then kills it and fails the test); a stopped service is left alone.
func (svc *Service) Stop(t *testing.T) {
	t.Helper()
	select {
	case <-svc.exited:
		return
	default:
	}
	svc.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-svc.exited:
	case <-time.After(serviceTimeout):
		svc.cmd.Process.Kill()
		<-svc.exited
		t.Errorf("lexsona serve at %s did not stop within %s of SIGTERM", svc.Addr, serviceTimeout)
	}
}

// Requests are the service's request log lines for method and path (its
// "msg=request" lines; health probes are not logged).
func (svc *Service) Requests(method, path string) []string {
	var out []string
	for _, l := range strings.Split(svc.log.String(), "\n") {
		if strings.Contains(l, "msg=request") && strings.Contains(l, "method="+method+" ") && strings.Contains(l, "path="+path+" ") {
			out = append(out, l)
		}
	}
	return out
}

// Installed is what `lexsona --json hooks install` reports.
type Installed struct {
	Path    string `json:"path"`
	HTTP    bool   `json:"http"`
	Command string `json:"command"`
	Server  string `json:"server"`
	Matcher string `json:"matcher"`
}

// install runs `lexsona --json hooks install claude-code --dir PROJECT` with
// more flags (e.g. --http URL) as a user does, and returns its report, the
// settings file's path made absolute.
func install(t *testing.T, sb *Sandbox, more ...string) Installed {
	t.Helper()
	out := sb.Lexsona(t, append([]string{"--json", "hooks", "install", "claude-code", "--dir", sb.Project}, more...)...)
	var res Installed
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Path == "" {
		t.Fatalf("lexsona --json hooks install: no path in %q (%v)", out, err)
	}
	if !filepath.IsAbs(res.Path) {
		res.Path = filepath.Join(sb.Project, res.Path)
	}
	return res
}

// SpoolStatus is what `lexsona --json spool status` reports.
type SpoolStatus struct {
	Waiting   int    `json:"waiting"`
	Failed    int    `json:"failed"`
	LastError string `json:"last_error"`
}

func spoolStatus(t *testing.T, sb *Sandbox) SpoolStatus {
	t.Helper()
	out := sb.Lexsona(t, "--json", "spool", "status")
	var st SpoolStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("lexsona --json spool status: %v\n%s", err, out)
	}
	return st
}

// RuleEvent is one event of a rule's history (`lexsona --json why RULE`).
type RuleEvent struct {
	EventID   int64  `json:"event_id"`
	EventType string `json:"event_type"`
	UserText  string `json:"user_text"`
	Detail    string `json:"detail"`
}

// Explained is what `lexsona --json why RULE` says of a rule: its state,
// its statement (nil when the user never stated it) and its history.
type Explained struct {
	Rule struct {
		State  string `json:"state"`
		Stated *struct {
			At time.Time `json:"at"`
			By string    `json:"by"`
		} `json:"stated"`
	} `json:"rule"`
	History []RuleEvent `json:"history"`
}

func why(t *testing.T, sb *Sandbox, rule string) Explained {
	t.Helper()
	out := sb.Lexsona(t, "--json", "why", rule)
	var e Explained
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("lexsona --json why %s: %v\n%s", rule, err, out)
	}
	return e
}

// reinforcements counts the reinforcement events of rule's history whose
// user text is text ("" for any).
func reinforcements(t *testing.T, sb *Sandbox, rule, text string) int {
	t.Helper()
	n := 0
	for _, e := range why(t, sb, rule).History {
		if e.EventType == "reinforcement" && (text == "" || e.UserText == text) {
			n++
		}
	}
	return n
}

// waitFor polls cond every 100 ms until it holds or timeout has passed, and
// reports whether it held.
func waitFor(timeout time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(timeout); ; time.Sleep(100 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// waitDelivered waits at most recordWait until nothing waits on the spool,
// and fails the test when something still does, or was refused.
func waitDelivered(t *testing.T, sb *Sandbox) {
	t.Helper()
	var st SpoolStatus
	if !waitFor(recordWait, func() bool { st = spoolStatus(t, sb); return st.Waiting == 0 }) {
		t.Fatalf("after %s the spool still holds %d items (last error %q)", recordWait, st.Waiting, st.LastError)
	}
	if st.Failed != 0 {
		t.Errorf("the spool refused %d items (last error %q)", st.Failed, st.LastError)
	}
}

// firstRequestText is the system prompt and the messages of the session's
// first agent-loop request.
func firstRequestText(t *testing.T, sess Session) string {
	t.Helper()
	if len(sess.Main) == 0 {
		t.Fatalf("no request of the agent loop reached the stand-in (exit %v)\nstderr: %s", sess.Err, sess.Stderr)
	}
	first := sess.Main[0].Msg
	return first.SystemText() + "\n" + first.MessagesText()
}
