package e2e

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
)

// The fault tests need a file system they can fill or make read-only: a
// small tmpfs they mount themselves, which takes root (or CAP_SYS_ADMIN).
// Where mounting is not permitted they skip, saying so, unless
// LEXSONA_REQUIRE_FAULTS=1, which makes that a failure (CI sets it).

// requireFaults reports whether LEXSONA_REQUIRE_FAULTS=1.
func requireFaults() bool { return testenv.Required(testenv.RequireFaultsEnv) }

// skipFault skips the test with why, or fails it under LEXSONA_REQUIRE_FAULTS=1.
func skipFault(t *testing.T, why string) {
	t.Helper()
	if requireFaults() {
		t.Fatalf("%s (LEXSONA_REQUIRE_FAULTS=1 makes this a failure)", why)
	}
	t.Skipf("%s; set LEXSONA_REQUIRE_FAULTS=1 to make this a failure", why)
}

// mustMountTmpfs mounts a tmpfs of size (like "8m") on a new folder and
// unmounts it at the end of the test.
func mustMountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		skipFault(t, fmt.Sprintf("cannot mount a tmpfs on %s (%v: %s): the fault tests need root", dir, err, strings.TrimSpace(string(out))))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			// a process the test started may still hold it: detach it lazily
			if out2, err2 := exec.Command("umount", "-l", dir).CombinedOutput(); err2 != nil {
				t.Errorf("umount %s: %v: %s; umount -l: %v: %s", dir, err, out, err2, out2)
			}
		}
	})
	return dir
}

// mustRemount remounts the tmpfs at dir with opts (like "ro" or "rw").
func mustRemount(t *testing.T, dir, opts string) {
	t.Helper()
	if out, err := exec.Command("mount", "-o", "remount,"+opts, dir).CombinedOutput(); err != nil {
		t.Fatalf("mount -o remount,%s %s: %v: %s", opts, dir, err, out)
	}
}

// startFaultServe starts `lexsona serve` (lexical embedder, a free port)
// over db with its stderr in logDir, and returns once it listens, or an
// error quoting its output when it exits first.
func startFaultServe(t *testing.T, bin, db, logDir string, args ...string) (*Proc, error) {
	t.Helper()
	p, err := startServe(bin, db, serveOpts{LogDir: logDir, Wait: 60 * time.Second}, args...)
	if p != nil {
		t.Cleanup(p.Kill)
	}
	return p, err
}

// mustStartFaultServe is startFaultServe failing the test on an error.
func mustStartFaultServe(t *testing.T, bin, db, logDir string, args ...string) *Proc {
	t.Helper()
	p, err := startFaultServe(t, bin, db, logDir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// errorBody is the body of an error answer.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// mustAnswer checks r's status and, when msg is not empty, that its error
// message contains msg (case-insensitively).
func mustAnswer(t *testing.T, what string, r Response, status int, msg string) {
	t.Helper()
	var e errorBody
	_ = json.Unmarshal(r.Body, &e)
	if r.Status != status || !strings.Contains(strings.ToLower(e.Error.Message), strings.ToLower(msg)) {
		t.Fatalf("%s: %d %s, want %d with a message containing %q", what, r.Status, clipBody(r.Body), status, msg)
	}
}

// readyz returns GET /readyz's status and body.
func readyz(t *testing.T, c *Client) Response {
	t.Helper()
	return c.MustDo(t, http.MethodGet, "/readyz", "", nil)
}

// recordOne posts one correction to tool.pnpm-not-npm with an idempotency key and returns the
// answer and the event id of a 201.
func recordOne(c *Client, key, text string) (Response, int64, error) {
	return recordTo(c, "tool.pnpm-not-npm", key, text)
}

// recordTo is recordOne for the rule rule.
func recordTo(c *Client, rule, key, text string) (Response, int64, error) {
	body := fmt.Sprintf(`{"text":%q,"rule_id":%q,"polarity":1}`, text, rule)
	r, err := c.Do(http.MethodPost, "/v1/corrections", "application/json", []byte(body), map[string]string{"Idempotency-Key": key})
	if err != nil {
		return r, 0, err
	}
	var res struct {
		EventID int64 `json:"event_id"`
	}
	_ = json.Unmarshal(r.Body, &res)
	return r, res.EventID, nil
}

// mustHoldEvents opens db read-only (immutable when its folder cannot be
// written) and checks that every event id in acked is stored.
func mustHoldEvents(t *testing.T, db string, acked []int64, immutable bool) {
	t.Helper()
	dsn := "file:" + db + "?mode=ro"
	if immutable {
		dsn += "&immutable=1"
	}
	conn := mustOpenDSN(t, dsn)
	stored := map[int64]bool{}
	rows, err := conn.Query("SELECT event_id FROM persona_events")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		stored[id] = true
	}
	for _, id := range acked {
		if !stored[id] {
			t.Fatalf("acknowledged event %d is missing from %s", id, db)
		}
	}
}

// mustOpenDSN opens a database/sql handle on dsn (one connection), closed
// at the end of the test.
func mustOpenDSN(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatalf("opening %s: %v", dsn, err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// readyLimit is how long a fault test waits for a server to be ready.
const readyLimit = 30 * time.Second
