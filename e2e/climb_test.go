package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// climbToRoot is a relative path of ".." components that climbs from the
// test's working directory to "/", whatever the depth of the clone: one ".."
// per component of the deeper of the logical and the symlink-free working
// directory, plus one (a ".." at "/" stays at "/").
func climbToRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(wd)
	if err != nil {
		t.Fatal(err)
	}
	return dotsAbove(wd, real)
}

// dotsAbove is "../" repeated once per component of the deepest of dirs
// (absolute paths), plus once.
func dotsAbove(dirs ...string) string {
	n := 0
	for _, d := range dirs {
		n = max(n, len(strings.Split(strings.Trim(filepath.ToSlash(filepath.Clean(d)), "/"), "/")))
	}
	return strings.Repeat("../", n+1)
}

// TestDotsAboveReachesRoot checks the path the bad-input catalogue uses to
// reach /etc from the test's working directory, at any clone depth.
func TestDotsAboveReachesRoot(t *testing.T) {
	for _, wd := range []string{
		"/",
		"/work/main/e2e",
		"/home/alice/src/lexsona/e2e",
		"/a/b/c/d/e/f/g/h/i/j/k/l/m/e2e",
	} {
		t.Run(wd, func(t *testing.T) {
			got := filepath.Join(wd, dotsAbove(wd)+"etc")
			if got != "/etc" {
				t.Errorf("from %s, %q leads to %s, want /etc", wd, dotsAbove(wd)+"etc", got)
			}
		})
	}
	t.Run("deeper real path", func(t *testing.T) {
		logical, real := "/src/e2e", "/mnt/disk/users/alice/src/e2e"
		if got := filepath.Join(real, dotsAbove(logical, real)+"etc"); got != "/etc" {
			t.Errorf("from the real path %s: %s, want /etc", real, got)
		}
	})
}
