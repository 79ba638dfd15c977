package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	keyRead  = "read-key-0123456789abcdef"
	keyWrite = "write-key-0123456789abcdef"
)

// startServeEnv is MustStartServe with extra environment variables.
func startServeEnv(t *testing.T, bin, db string, env []string, args ...string) *Proc {
	t.Helper()
	p, err := startServe(bin, db, serveOpts{Env: env}, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	return p
}

// writeKeys writes the two keys to a file with mode perm.
func writeKeys(t *testing.T, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "api-keys")
	if err := os.WriteFile(path, []byte("# lexsona API keys\nread:"+keyRead+"\nwrite:"+keyWrite+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkKeysEnforced: no key is 401, the read key reads and may not write,
// the write key writes.
func checkKeysEnforced(t *testing.T, p *Proc) {
	t.Helper()
	c := NewClient(p.Base, 2)
	if r := c.MustDo(t, http.MethodGet, "/v1/rules?limit=1", "", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("no key: %d, want 401", r.Status)
	}
	c.Key = keyRead
	if r := c.MustDo(t, http.MethodGet, "/v1/rules?limit=1", "", nil); r.Status != http.StatusOK {
		t.Errorf("read key reading: %d, want 200", r.Status)
	}
	body := []byte(`{"rule_id":"user.keys-file","category":"code_style","severity":"should","text":"Use tabs"}`)
	if r := c.MustDo(t, http.MethodPost, "/v1/rules", jsonCT, body); r.Status != http.StatusForbidden {
		t.Errorf("read key writing: %d, want 403", r.Status)
	}
	c.Key = keyWrite
	if r := c.MustDo(t, http.MethodPost, "/v1/rules", jsonCT, body); r.Status != http.StatusCreated {
		t.Errorf("write key writing: %d, want 201 (%s)", r.Status, clipBody(r.Body))
	}
}

// TestAPIKeysFile: `lexsona serve --api-keys-file` (or LEXSONA_API_KEYS_FILE)
// serves with the file's keys when only its owner may read it, refuses to
// start when its group or others may; keys on the command line draw a
// warning, keys in the environment do not.
func TestAPIKeysFile(t *testing.T) {
	bin := MustBuildBinary(t)
	dir := t.TempDir()

	t.Run("owner-only file", func(t *testing.T) {
		p := MustStartServe(t, bin, filepath.Join(dir, "a.db"), "--api-keys-file", writeKeys(t, 0o600))
		checkKeysEnforced(t, p)
		if strings.Contains(p.Log(), "process list") {
			t.Errorf("a warning about the command line for keys from a file:\n%s", p.Log())
		}
		for _, k := range []string{keyRead, keyWrite} {
			if strings.Contains(p.Log(), k) {
				t.Errorf("the log shows a key")
			}
		}
	})
	t.Run("file from the environment", func(t *testing.T) {
		p := startServeEnv(t, bin, filepath.Join(dir, "b.db"), []string{"LEXSONA_API_KEYS_FILE=" + writeKeys(t, 0o400)})
		checkKeysEnforced(t, p)
	})
	for _, perm := range []os.FileMode{0o644, 0o640, 0o604, 0o660} {
		t.Run("refused "+perm.String(), func(t *testing.T) {
			path := writeKeys(t, perm)
			r := MustRunCLI(t, bin, "", "serve", "--db", filepath.Join(dir, "c.db"), "--addr", "127.0.0.1:0", "--embedder", "lexical", "--api-keys-file", path)
			if r.Code != 2 || !strings.Contains(r.Stderr, "chmod 600") {
				t.Errorf("exit %d, stderr %q; want 2 and a message saying chmod 600", r.Code, r.Stderr)
			}
			if strings.Contains(r.Stderr, keyRead) || strings.Contains(r.Stderr, keyWrite) {
				t.Errorf("the message shows a key: %s", r.Stderr)
			}
		})
	}
	t.Run("both a file and a list", func(t *testing.T) {
		r := MustRunCLI(t, bin, "", "serve", "--db", filepath.Join(dir, "d.db"), "--addr", "127.0.0.1:0", "--embedder", "lexical",
			"--api-keys-file", writeKeys(t, 0o600), "--api-keys", "write:"+keyWrite)
		if r.Code != 2 || !strings.Contains(r.Stderr, "one way") {
			t.Errorf("exit %d, stderr %q; want 2, give them one way", r.Code, r.Stderr)
		}
	})
	t.Run("command line refused", func(t *testing.T) {
		r := MustRunCLI(t, bin, "", "serve", "--db", filepath.Join(dir, "r.db"), "--addr", "127.0.0.1:0", "--embedder", "lexical",
			"--api-keys", "read:"+keyRead+",write:"+keyWrite)
		if r.Code != 2 || !strings.Contains(r.Stderr, "--api-keys-file") || !strings.Contains(r.Stderr, "--insecure-keys-on-command-line") || strings.Contains(r.Stderr, keyWrite) {
			t.Errorf("exit %d, stderr %q; want 2, naming the safer ways and the flag that insists", r.Code, r.Stderr)
		}
	})
	t.Run("command line insisted on warns", func(t *testing.T) {
		p := MustStartServe(t, bin, filepath.Join(dir, "e.db"), "--insecure-keys-on-command-line", "--api-keys", "read:"+keyRead+",write:"+keyWrite)
		checkKeysEnforced(t, p)
		if !strings.Contains(p.Log(), "visible to every local user in the process list") {
			t.Errorf("no warning for keys on the command line:\n%s", p.Log())
		}
	})
	t.Run("environment does not warn", func(t *testing.T) {
		p := startServeEnv(t, bin, filepath.Join(dir, "f.db"), []string{"LEXSONA_API_KEYS=read:" + keyRead + ",write:" + keyWrite})
		checkKeysEnforced(t, p)
		if strings.Contains(p.Log(), "process list") {
			t.Errorf("a warning for keys from the environment:\n%s", p.Log())
		}
	})
}
