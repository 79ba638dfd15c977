package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store/storetest"
)

// TestOpenCreatesPrivateFiles: a new data folder is 0700, and the database
// file, its write-ahead log and its wal-index are 0600, whatever the umask
// lets through.
func TestOpenCreatesPrivateFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "lexsona")
	path := filepath.Join(dir, "lexsona.db")
	db, _, err := openPath(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{}) // the log exists after a write
	for _, c := range []struct {
		path string
		want os.FileMode
	}{
		{filepath.Dir(dir), 0o700},
		{dir, 0o700},
		{path, 0o600},
		{path + "-wal", 0o600},
		{path + "-shm", 0o600},
	} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != c.want {
			t.Errorf("%s: mode %04o, want %04o", c.path, got, c.want)
		}
	}
}

// TestOpenKeepsExistingMode: a database file that exists keeps its mode.
func TestOpenKeepsExistingMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lexsona.db")
	if err := os.WriteFile(path, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	db, _, err := openPath(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o640 {
		t.Errorf("mode %04o, want 0640 kept", got)
	}
}
