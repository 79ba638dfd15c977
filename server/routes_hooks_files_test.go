package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/hooks"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/server/servertest"
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

// personaScopes is a fake memory whose persona has one rule and records
// the scope each SessionStart asked it for: the scope the route found.
func personaScopes() (*servertest.Memory, *[]engine.Scope) {
	var scopes []engine.Scope
	return &servertest.Memory{PersonaFn: func(_ context.Context, req memory.PersonaRequest) (engine.Snapshot, error) {
		scopes = append(scopes, req.Scope)
		return engine.Snapshot{Scope: req.Scope, Rules: []engine.SnapshotRule{{}}, Prompt: "## the block"}, nil
	}}, &scopes
}

// lastScope is the scope the persona was last asked for, in the prompt's
// notation (environment/project/agent[tags], * for none).
func lastScope(t *testing.T, scopes []engine.Scope) string {
	t.Helper()
	if len(scopes) == 0 {
		t.Fatal("the persona was not asked for")
	}
	sc := scopes[len(scopes)-1]
	or := func(s string) string {
		if s == "" {
			return "*"
		}
		return s
	}
	out := or(sc.Environment) + "/" + or(sc.Project) + "/" + or(sc.AgentFamily)
	if len(sc.ContextTags) > 0 {
		out += "[" + strings.Join(sc.ContextTags, ",") + "]"
	}
	return out
}

// The hook route never reads the server's files on a remote caller's say-so:
// the scope comes from the hook URL's query, else from the text of cwd.
func TestClaudeCodeHookRouteReadsNoServerFiles(t *testing.T) {
	mem, scopes := personaScopes()
	env, _ := newFakeEnv(t, nil, mem, nil)
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
		{"device link", "", dir, "*/innocent/claude"},
		{"fifo", "", fifoDir, "*/fifo-project/claude"},
		{"query names the scope", "?project=web&context_tags=go,react", dir, "*/web/claude[go,react]"},
		{"query names the agent", "?agent_family=cursor", dir, "*/innocent/cursor"},
		{"no cwd", "", "", "*/*/claude"},
		{"windows cwd", "", `C:\Users\ana\Shop App`, "*/shop-app/claude"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := postHook(t, ts.URL, tc.query, "", hookEvent(t, tc.cwd, map[string]string{"hook_event_name": "SessionStart", "source": "startup"}))
			if status != 200 || !strings.Contains(body, "## the block") {
				t.Fatalf("status %d, body %s; want the persona", status, body)
			}
			if got := lastScope(t, *scopes); got != tc.wantScope {
				t.Errorf("scope %s, want %s", got, tc.wantScope)
			}
		})
	}
	n := len(*scopes)
	status, _, body := postHook(t, ts.URL, "?projct=web", "", hookEvent(t, dir, map[string]string{"hook_event_name": "SessionStart"}))
	if status != 400 || !strings.Contains(body, "projct") || len(*scopes) != n {
		t.Errorf("a misspelt scope parameter: status %d, body %s", status, body)
	}
}

// With --hook-root, a caller on loopback whose cwd lies inside the root gets
// the scope of the project's files there, read as bounded regular files;
// links leading out of the root and folders outside it are not read.
func TestClaudeCodeHookRouteHookRoots(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	mem, scopes := personaScopes()
	env, _ := newFakeEnv(t, func(c *Config) { c.HookRoots = []string{root} }, mem, nil)
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
		{"inside the root", filepath.Join(inside, "src"), "work/storefront/claude[javascript]", 200},
		{"link out of the root", linked, "*/linked/claude", 200},
		{"outside the root", outsideProject, "*/elsewhere/claude", 200},
		// The link out of the root counts as absent; the files inside the
		// root (its .git/config, its go.mod) are the project's.
		{"a device link leads out of the root", hostile, "*/secret-remote/claude[go]", 200},
		{"a fifo inside the root is refused", fifo, "is not a regular file", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := len(*scopes)
			status, _, body := postHook(t, ts.URL, "", "", hookEvent(t, tc.cwd, map[string]string{"hook_event_name": "SessionStart"}))
			if status != tc.status || strings.Contains(body, "leaked") {
				t.Fatalf("status %d, body %s; want %d", status, body, tc.status)
			}
			if tc.status != 200 {
				if !strings.Contains(body, tc.want) || len(*scopes) != n {
					t.Errorf("body %s, want a refusal with %s before the persona", body, tc.want)
				}
				return
			}
			if got := lastScope(t, *scopes); got != tc.want {
				t.Errorf("scope %s, want %s", got, tc.want)
			}
		})
	}
}

// The hook route takes application/json as every other body of the API: a
// text/plain event is refused and records nothing.
func TestClaudeCodeHookRouteRefusesTextPlain(t *testing.T) {
	mem := &servertest.Memory{}
	env, _ := newFakeEnv(t, nil, mem, nil)
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
	if len(mem.Called()) != 0 {
		t.Errorf("a text/plain event reached the memory: %v", mem.Called())
	}
}
