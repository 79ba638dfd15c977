package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The hook loop as Claude Code runs it: every prompt goes through a
// `lexsona hook claude-code` process, which spools it and starts a drainer.

// hookEvent is a UserPromptSubmit event of session s in project dir.
func promptEvent(dir, session, prompt string) string {
	b, _ := json.Marshal(map[string]string{"session_id": session, "cwd": dir, "hook_event_name": "UserPromptSubmit", "prompt": prompt})
	return string(b)
}

// runHook runs one hook process with event on stdin and env, and fails the
// test unless it exits 0 within 10 s.
func runHook(tb testing.TB, bin string, env []string, event string, args ...string) {
	tb.Helper()
	cmd := exec.Command(bin, append([]string{"hook", "claude-code"}, args...)...)
	cmd.Env, cmd.Stdin = env, strings.NewReader(event)
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			tb.Fatalf("hook: %v", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		tb.Fatal("a hook process ran for 10 s")
	}
}

// freePort is a loopback port nothing listens on now.
func freePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// spinners starts n CPU-bound processes, stopped at the end of the test.
func spinners(tb testing.TB, n int) {
	for range n {
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
}

// waitSpoolEmpty drains the spool of db until nothing waits (each drain
// delivers what it can), within limit.
func waitSpoolEmpty(tb testing.TB, bin string, env []string, limit time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(limit)
	for {
		cmd := exec.Command(bin, "spool", "drain", "--quiet")
		cmd.Env = env
		cmd.Run()
		status := exec.Command(bin, "spool", "status", "--json")
		status.Env = env
		out, _ := status.Output()
		var st struct{ Waiting, Failed int }
		json.Unmarshal(out, &st)
		if st.Failed > 0 {
			tb.Fatalf("spool refused %d items: %s", st.Failed, out)
		}
		if st.Waiting == 0 {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%d items still wait on the spool after %s", st.Waiting, limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestHookLoopLosesNothing sends explicit corrections through the
// installed hook processes, each prompt's text its own, some of them twice
// in the same session, while two CPU-bound processes run and the service
// is killed and started again twice: every prompt is recorded once.
func TestHookLoopLosesNothing(t *testing.T) {
	bin := MustBuildBinary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "lexsona.db")
	proj := filepath.Join(dir, "shop")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "package.json"), []byte("{}"), 0o644)
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	base := "http://" + addr
	env := cleanEnv("LEXSONA_DB="+db, "LEXSONA_EMBEDDER=lexical")
	svc := MustStartServe(t, bin, db, "--addr", addr)
	c := NewClient(svc.Base, 2)
	before := c.MustRule(t, "tool.pnpm-not-npm").Reinforcements
	spinners(t, 2)

	const prompts = 500
	sent := map[string]bool{}
	for i := range prompts {
		if i == 150 || i == 330 {
			svc.Stop(t)
		}
		if i == 230 || i == 420 {
			svc = MustStartServe(t, bin, db, "--addr", addr)
		}
		session := fmt.Sprintf("s-%d", i/50)
		prompt := fmt.Sprintf("CORRECT[tool.pnpm-not-npm]: pnpm, not npm (take %d)", i)
		sent[prompt] = true
		runHook(t, bin, env, promptEvent(proj, session, prompt), "--server", base)
		if i%10 == 0 { // the same prompt again in its session: recorded once
			runHook(t, bin, env, promptEvent(proj, session, prompt), "--server", base)
		}
	}
	waitSpoolEmpty(t, bin, env, 2*time.Minute)
	after := NewClient(svc.Base, 2).MustRule(t, "tool.pnpm-not-npm").Reinforcements
	if got := after - before; got != prompts {
		t.Errorf("%d prompts recorded, want %d: %d lost or %d doubled", got, prompts, max(prompts-got, 0), max(got-prompts, 0))
	}
}

// BenchmarkHookProcess times whole hook processes as Claude Code starts
// them, one event after another on a prepared database with the default
// pack: SessionStart (the persona, no model), PreToolUse (a Bash call no
// rule denies) and UserPromptSubmit (spool the prompt, start a drainer),
// reporting the median and 95th percentile wall time of b.N processes.
// UserPromptSubmit is timed as a user meets it, the previous prompt's
// drainer done (waited for outside the timing), and back to back
// (UserPromptSubmitBackToBack), each hook sharing the machine with the
// drainers of the prompts before it. PreToolUseEnforcing is PreToolUse
// once a must rule with a check is in force for the project.
func BenchmarkHookProcess(b *testing.B) {
	bin := MustBuildBinary(b)
	dir := b.TempDir()
	proj := filepath.Join(dir, "shop")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "package.json"), []byte("{}"), 0o644)
	env := cleanEnv("LEXSONA_DB="+filepath.Join(dir, "lexsona.db"), "LEXSONA_EMBEDDER=lexical")
	prep := exec.Command(bin, "registry", "sync")
	prep.Env = env
	if out, err := prep.CombinedOutput(); err != nil {
		b.Fatalf("registry sync: %v\n%s", err, out)
	}
	event := func(name, extra string) string {
		return `{"session_id":"bench","cwd":"` + proj + `","hook_event_name":"` + name + `"` + extra + `}`
	}
	for _, bc := range []struct{ name, event string }{
		{"SessionStart", event("SessionStart", `,"source":"startup"`)},
		{"PreToolUse", event("PreToolUse", `,"tool_name":"Bash","tool_input":{"command":"ls -la"}`)},
		{"UserPromptSubmit", ""},
		{"UserPromptSubmitBackToBack", ""},
		{"PreToolUseEnforcing", event("PreToolUse", `,"tool_name":"Bash","tool_input":{"command":"ls -la"}`)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.name == "PreToolUseEnforcing" {
				// A must rule with a check in force: the hook reads the
				// registries in force too.
				rec := exec.Command(bin, "record", "--detect", proj, "--idempotency-key", "bench-enforce",
					"CORRECT[tool.no-sed-for-file-editing]: never edit files with sed -i")
				rec.Env = env
				if out, err := rec.CombinedOutput(); err != nil {
					b.Fatalf("record: %v\n%s", err, out)
				}
			}
			var took []time.Duration
			for i := 0; b.Loop(); i++ {
				ev := bc.event
				if ev == "" {
					ev = promptEvent(proj, "bench", fmt.Sprintf("add a health check endpoint, take %d of %s", i, bc.name))
				}
				start := time.Now()
				runHook(b, bin, env, ev)
				took = append(took, time.Since(start))
				if bc.name == "UserPromptSubmit" {
					b.StopTimer()
					drain := exec.Command(bin, "spool", "drain", "--wait", "--quiet")
					drain.Env = env
					if out, err := drain.CombinedOutput(); err != nil {
						b.Fatalf("spool drain --wait: %v\n%s", err, out)
					}
					b.StartTimer()
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50_ms")
			b.ReportMetric(float64(took[(len(took)*95)/100].Microseconds())/1000, "p95_ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}
