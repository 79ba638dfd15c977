package sqlite

import (
	"errors"
	"io/fs"
	"os"

	"github.com/lexsona/lexsona/engine"
)

// Files are private to their owner: Open creates the data folder 0700 and
// the database file 0600 before SQLite opens it. SQLite gives the
// write-ahead log (-wal) and the wal-index (-shm) it creates the database
// file's mode, so they are 0600 too. An existing file or folder keeps the
// mode it has.

// createPrivate creates the database file at path, empty and with mode 0600,
// when nothing exists there yet. When something does (or cannot be looked
// at), it does nothing and leaves the error to SQLite's open. Errors:
// EUNAVAILABLE when the file cannot be created.
func createPrivate(path string) error {
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil // created meanwhile by another process
	}
	if err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "cannot create the database file %s: %v", path, err)
	}
	return f.Close()
}
