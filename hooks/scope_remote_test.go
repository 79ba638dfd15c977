package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestDetectScopeWithinReadsNothingOutside: under a hook root, a project
// file that is — or is swapped, while the service reads, for — a link out
// of the root counts as absent: its contents never reach the scope, and a
// go.mod link out says nothing about whether its target exists.
func TestDetectScopeWithinReadsNothingOutside(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.yaml")
	os.WriteFile(secret, []byte("project: leaked\ntags: [leaked]\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "go.mod"), []byte("module x\n"), 0o644)
	proj := filepath.Join(root, "shop")
	os.MkdirAll(proj, 0o755)
	os.Symlink(filepath.Join(outside, "go.mod"), filepath.Join(proj, "go.mod"))
	good := []byte("project: storefront\n")
	cfg := filepath.Join(proj, ProjectFile)

	// A writer swaps .lexsona.yaml between a regular file and a link out.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tmp := cfg + ".tmp"
			os.Remove(tmp)
			if i%2 == 0 {
				os.Symlink(secret, tmp)
			} else {
				os.WriteFile(tmp, good, 0o644)
			}
			os.Rename(tmp, cfg)
		}
	}()
	for range 2000 {
		s, ok, err := DetectScopeWithin(proj, AgentClaude, []string{root})
		if err != nil || !ok {
			continue
		}
		if got := s.String(); strings.Contains(got, "leaked") || strings.Contains(got, "go") {
			close(stop)
			wg.Wait()
			t.Fatalf("scope %s holds what lies outside the root", got)
		}
	}
	close(stop)
	wg.Wait()
}
