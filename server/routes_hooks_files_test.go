package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/lexsona/lexsona/hooks"
)

// hostileProject is a folder a remote caller could name: its .lexsona.yaml
// is a link to /dev/zero (reading it whole exhausts memory), its
// .git/config names a remote the answer must not disclose, and it holds a
// go.mod whose language tag must not leak either.
func hostileProject(t *testing.T, parent, name string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[remote \"origin\"]\n\turl = git@example.com:acme/secret-remote.git\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	if err := os.Symlink("/dev/zero", filepath.Join(dir, ".lexsona.yaml")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// anchorRule adds a rule of the user's, in force everywhere at once, so that
// every SessionStart's persona names the scope it was built for.
func anchorRule(t *testing.T, env *testEnv) {
	t.Helper()
	mustStatus(t, env.post("/v1/rules", `{"rule_id":"style.anchor","category":"communication_style","text":"Answer briefly."}`), http.StatusCreated)
}

// The hook route never reads the server's files on a remote caller's say-so:
// the scope comes from the hook URL's query, else from the text of cwd.
func TestClaudeCodeHookRouteReadsNoServerFiles(t *testing.T) {
	env := newTestEnv(t, nil)
	anchorRule(t, env)
	ts := httptest.NewServer(env.h)
	defer ts.Close()
	dir := hostileProject(t, t.TempDir(), "innocent")
	fifoDir := filepath.Join(t.TempDir(), "fifo-project")
	os.MkdirAll(fifoDir, 0o755)
	if err := syscall.Mkfifo(filepath.Join(fifoDir, ".lexsona.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, query, cwd, wantScope string
	}{
		{"device link", "", dir, "(scope: */innocent/claude)"},
		{"fifo", "", fifoDir, "(scope: */fifo-project/claude)"},
		{"query names the scope", "?project=web&context_tags=go,react", dir, "(scope: */web/claude[go,react])"},
		{"query names the agent", "?agent_family=cursor", dir, "(scope: */innocent/cursor)"},
		{"no cwd", "", "", "(scope: */*/claude)"},
		{"windows cwd", "", `C:\Users\ana\Shop App`, "(scope: */shop-app/claude)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := postHook(t, ts.URL, tc.query, "", hookEvent(t, tc.cwd, map[string]string{"hook_event_name": "SessionStart", "source": "startup"}))
			if status != 200 || !strings.Contains(body, tc.wantScope) {
				t.Fatalf("status %d, body %s; want scope %s", status, body, tc.wantScope)
			}
			if strings.Contains(body, "secret-remote") {
				t.Errorf("the answer discloses the folder's git remote: %s", body)
			}
		})
	}
	status, _, body := postHook(t, ts.URL, "?projct=web", "", hookEvent(t, dir, map[string]string{"hook_event_name": "SessionStart"}))
	if status != 400 || !strings.Contains(body, "projct") {
		t.Errorf("a misspelt scope parameter: status %d, body %s", status, body)
	}
}

// With --hook-root, a caller on loopback whose cwd lies inside the root gets
// the scope of the project's files there, read as bounded regular files;
// links leading out of the root and folders outside it are not read.
func TestClaudeCodeHookRouteHookRoots(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	env := newTestEnv(t, func(c *Config) { c.HookRoots = []string{root} })
	anchorRule(t, env)
	ts := httptest.NewServer(env.h)
	defer ts.Close()

	inside := filepath.Join(root, "shop")
	os.MkdirAll(filepath.Join(inside, "src"), 0o755)
	os.WriteFile(filepath.Join(inside, ".lexsona.yaml"), []byte("project: storefront\nenvironment: work\n"), 0o644)
	os.WriteFile(filepath.Join(inside, "package.json"), []byte("{}"), 0o644)

	secret := filepath.Join(outside, "secret.yaml")
	os.WriteFile(secret, []byte("project: leaked\n"), 0o644)
	linked := filepath.Join(root, "linked")
	os.MkdirAll(linked, 0o755)
	os.Symlink(secret, filepath.Join(linked, ".lexsona.yaml"))

	hostile := hostileProject(t, root, "hostile")
	fifo := filepath.Join(root, "fifo")
	os.MkdirAll(fifo, 0o755)
	if err := syscall.Mkfifo(filepath.Join(fifo, ".lexsona.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	outsideProject := filepath.Join(outside, "elsewhere")
	os.MkdirAll(outsideProject, 0o755)
	os.WriteFile(filepath.Join(outsideProject, ".lexsona.yaml"), []byte("project: leaked\n"), 0o644)
	for _, tc := range []struct {
		name, cwd, want string
		status          int
	}{
		{"inside the root", filepath.Join(inside, "src"), "(scope: work/storefront/claude[javascript])", 200},
		{"link out of the root", linked, "(scope: */linked/claude)", 200},
		{"outside the root", outsideProject, "(scope: */elsewhere/claude)", 200},
		// The link out of the root counts as absent; the files inside the
		// root (its .git/config, its go.mod) are the project's.
		{"a device link leads out of the root", hostile, "(scope: */secret-remote/claude[go])", 200},
		{"a fifo inside the root is refused", fifo, "is not a regular file", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := postHook(t, ts.URL, "", "", hookEvent(t, tc.cwd, map[string]string{"hook_event_name": "SessionStart"}))
			if status != tc.status || !strings.Contains(body, tc.want) || strings.Contains(body, "leaked") {
				t.Fatalf("status %d, body %s; want %d with %s", status, body, tc.status, tc.want)
			}
		})
	}
}

// The hook route takes application/json as every other body of the API: a
// text/plain event is refused and records nothing.
func TestClaudeCodeHookRouteRefusesTextPlain(t *testing.T) {
	env := newTestEnv(t, nil)
	ts := httptest.NewServer(env.h)
	defer ts.Close()
	body := hookEvent(t, t.TempDir(), map[string]string{"hook_event_name": "UserPromptSubmit", "prompt": "CORRECT[tool.no-sed-for-file-editing]: no sed"})
	resp, err := http.Post(ts.URL+hooks.HTTPRoute, "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(data), "Content-Type") {
		t.Errorf("text/plain: status %d, body %s", resp.StatusCode, data)
	}
}
