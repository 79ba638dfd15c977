package e2e

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFaultReadOnly makes a database that holds an acknowledged correction
// read-only two ways — its tmpfs remounted read-only, the immutable
// attribute on its file — and checks that the commands that only read
// (rules list, classify) work, that a write from the CLI fails saying
// "read-only", that the server starts and reads, that its writes answer 503
// saying "read-only", that /readyz is 503 saying why, and that the
// acknowledged correction is still there.
func TestFaultReadOnly(t *testing.T) {
	bin := MustBuildBinary(t)
	dir := mustMountTmpfs(t, "64m")
	logs := t.TempDir()
	db := filepath.Join(dir, "lexsona.db")
	p := mustStartFaultServe(t, bin, db, logs)
	if _, err := p.WaitReady(readyLimit); err != nil {
		t.Fatalf("%v\n%s", err, p.Log())
	}
	r, id, err := recordOne(NewClient(p.Base, 1), "ro-0", "use pnpm here, not npm")
	if err != nil || r.Status != http.StatusCreated {
		t.Fatalf("a correction before the database is read-only: %v %d %s", err, r.Status, clipBody(r.Body))
	}
	p.Stop(t)
	acked := []int64{id}

	ways := []struct {
		name           string
		lock, unlock   func(t *testing.T)
		immutableMount bool // the folder cannot be written either
	}{
		{"read-only mount", func(t *testing.T) { mustRemount(t, dir, "ro") }, func(t *testing.T) { mustRemount(t, dir, "rw") }, true},
		{"immutable attribute", func(t *testing.T) { mustChattr(t, "+i", db) }, func(t *testing.T) { mustChattr(t, "-i", db) }, false},
	}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			w.lock(t)
			defer w.unlock(t)
			flags := []string{"--db", db, "--embedder", "lexical"}
			list := MustRunCLI(t, bin, "", append([]string{"rules", "list"}, flags...)...)
			if list.Code != 0 || !strings.Contains(list.Stdout, "tool.pnpm-not-npm") {
				t.Fatalf("rules list on a read-only database: exit %d\n%s%s", list.Code, list.Stdout, list.Stderr)
			}
			cl := MustRunCLI(t, bin, "", append([]string{"classify", "use pnpm, not npm"}, flags...)...)
			if cl.Code != 0 || !strings.Contains(cl.Stdout, "tool.pnpm-not-npm") {
				t.Fatalf("classify on a read-only database: exit %d\n%s%s", cl.Code, cl.Stdout, cl.Stderr)
			}
			add := MustRunCLI(t, bin, "", append([]string{"rules", "add", "--rule", "tool.ro-test", "--category", "tooling",
				"--severity", "should", "--text", "Never write here"}, flags...)...)
			if add.Code == 0 || !strings.Contains(add.Stderr, "read-only") {
				t.Fatalf("rules add on a read-only database: exit %d, want a failure saying read-only\n%s%s", add.Code, add.Stdout, add.Stderr)
			}

			p := mustStartFaultServe(t, bin, db, logs)
			c := NewClient(p.Base, 1)
			mustAnswer(t, "/readyz on a read-only database", readyz(t, c), http.StatusServiceUnavailable, "read-only")
			r, _, err := recordOne(c, "ro-1", "use pnpm here, not npm, again")
			if err != nil {
				t.Fatal(err)
			}
			mustAnswer(t, "a correction to a read-only database", r, http.StatusServiceUnavailable, "read-only")
			if r := c.MustDo(t, http.MethodGet, "/v1/rules/tool.pnpm-not-npm", "", nil); r.Status != http.StatusOK {
				t.Fatalf("a read of a read-only database: %d %s", r.Status, clipBody(r.Body))
			}
			if r := c.MustDo(t, http.MethodGet, "/v1/persona", "", nil); r.Status != http.StatusOK {
				t.Fatalf("the persona of a read-only database: %d %s", r.Status, clipBody(r.Body))
			}
			p.Stop(t)
			mustHoldEvents(t, db, acked, w.immutableMount)
		})
	}
}

// mustChattr runs chattr op path, skipping (or failing under
// LEXSONA_REQUIRE_FAULTS=1) where the file system or the user cannot.
func mustChattr(t *testing.T, op, path string) {
	t.Helper()
	if out, err := exec.Command("chattr", op, path).CombinedOutput(); err != nil {
		skipFault(t, "chattr "+op+" "+path+": "+err.Error()+": "+strings.TrimSpace(string(out)))
	}
}
