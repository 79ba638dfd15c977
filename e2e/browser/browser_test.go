// Package browser tests LexSona's review page in a real browser: it starts
// the real `lexsona serve` (a temp SQLite database, the lexical embedder,
// read and write API keys) and runs review.test.mjs, which drives the
// system's Chromium headless with playwright-core and saves a screenshot of
// every page under artifacts/. A key of the named tenant alice checks that
// a tenant's session sees its own memory only.
//
// It needs node, Chromium (/usr/bin/chromium, or $LEXSONA_CHROMIUM) and
// playwright-core in node_modules: `bash scripts/browser.sh install` puts
// them there. Without them the test is skipped, saying what is missing, or
// fails when LEXSONA_REQUIRE_BROWSER=1.
package browser

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
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

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.Cleanup()
	os.Exit(code)
}

// missing skips the test, or fails it under LEXSONA_REQUIRE_BROWSER=1.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...) + ": run `bash scripts/browser.sh install` (Chromium from apt, playwright-core from npm)"
	if testenv.Required(testenv.RequireBrowserEnv) {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// tools returns node, the Chromium executable and this folder, or skips.
func tools(t *testing.T) (node, chrome, dir string) {
	dir = filepath.Join(testenv.RepoRoot(t), "e2e", "browser")
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node is not on PATH")
	}
	chrome = testenv.Knob(testenv.ChromiumEnv)
	if chrome == "" {
		chrome = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chrome); err != nil {
		missing(t, "no Chromium at %s", chrome)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core", "package.json")); err != nil {
		missing(t, "playwright-core is not installed in %s", filepath.Join(dir, "node_modules"))
	}
	return node, chrome, dir
}

func randomKey(kind string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return kind + "-" + hex.EncodeToString(b[:])
}

var listening = regexp.MustCompile(`msg=listening addr=(127\.0\.0\.1:\d+)`)

// serve starts `lexsona serve` with keys and returns its base URL; it is
// stopped (SIGTERM) when the test ends.
func serve(t *testing.T, keys string) string {
	t.Helper()
	bin := testenv.MustBuildBinary(t)
	tmp := t.TempDir()
	cmd := exec.Command(bin, "serve", "--db", filepath.Join(tmp, "lexsona.db"), "--addr", "127.0.0.1:0", "--embedder", "lexical")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LEXSONA_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "LEXSONA_DATA="+filepath.Join(tmp, "data"), "LEXSONA_API_KEYS="+keys)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting lexsona serve: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("lexsona serve exited with %v after SIGTERM", err)
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("lexsona serve did not exit within 15 s of SIGTERM")
		}
	})
	addr := make(chan string, 1)
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if m := listening.FindStringSubmatch(line); m != nil {
				addr <- m[1]
			}
			if strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN") {
				t.Log("serve: " + line)
			}
			log.WriteString(line + "\n")
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case a := <-addr:
		return "http://" + a
	case <-time.After(60 * time.Second):
		t.Fatalf("lexsona serve did not report listening within 60 s")
	}
	return ""
}

func TestReviewPageInChromium(t *testing.T) {
	node, chrome, dir := tools(t)
	readKey, writeKey, aliceKey := randomKey("r"), randomKey("w"), randomKey("a")
	url := serve(t, "read:"+readKey+",write:"+writeKey+",alice:write:"+aliceKey)
	artifacts := filepath.Join(dir, "artifacts")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "review.test.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LEXSONA_URL="+url, "LEXSONA_READ_KEY="+readKey, "LEXSONA_WRITE_KEY="+writeKey,
		"LEXSONA_TENANT_KEY="+aliceKey, "LEXSONA_ARTIFACTS="+artifacts, "LEXSONA_CHROMIUM="+chrome)
	out, err := cmd.CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		t.Log(line)
	}
	if err != nil {
		t.Fatalf("review.test.mjs: %v (screenshots in %s)", err, artifacts)
	}
	if !strings.Contains(string(out), "all checks passed") {
		t.Fatalf("review.test.mjs did not report its checks")
	}
}
