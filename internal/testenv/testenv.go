// Package testenv holds what several packages' tests need from their
// environment: the repository root, the lexsona binary built once, and the
// variables that steer the tests, read in env.go alone.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Missing ends the test because a prerequisite is absent: it skips with the
// message, or fails with it when Required(requireEnv). The message should
// name what is missing and how to get it.
func Missing(tb testing.TB, requireEnv, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required(requireEnv) {
		tb.Fatalf("%s=1 but %s", requireEnv, msg)
	}
	tb.Skipf("%s (%s=1 makes this a failure)", msg, requireEnv)
}

// RepoRoot is the folder holding this module's go.mod, found by walking up
// from the test's working folder; it fails the test when there is none.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/lexsona/lexsona\n") {
			return d
		}
		if filepath.Dir(d) == d {
			tb.Fatalf("no go.mod of github.com/lexsona/lexsona above %s", wd)
		}
	}
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// MustBuildBinary builds cmd/lexsona once per test process into a temp
// folder of its own and returns the binary's path; a build failure fails the
// test with the compiler's output.
func MustBuildBinary(tb testing.TB) string {
	tb.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "lexsona-test-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "lexsona")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/lexsona")
		cmd.Dir = RepoRoot(tb)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/lexsona: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return binPath
}

// BinDir is the folder MustBuildBinary built into, or "" before it ran.
func BinDir() string {
	if binPath == "" {
		return ""
	}
	return filepath.Dir(binPath)
}

// Cleanup removes what MustBuildBinary built; call it from TestMain.
func Cleanup() {
	if dir := BinDir(); dir != "" {
		os.RemoveAll(dir)
	}
}
