package store

import (
	"os"
	"path/filepath"
)

// DataDir is where LexSona keeps its data by default: $LEXSONA_DATA, else
// $XDG_DATA_HOME/lexsona, else ~/.local/share/lexsona (./lexsona-data when
// there is no home directory).
func DataDir() string {
	if d := os.Getenv("LEXSONA_DATA"); d != "" {
		return d
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "lexsona")
	}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return filepath.Join(h, ".local", "share", "lexsona")
	}
	return "lexsona-data"
}

// DefaultPath is the default database file: $LEXSONA_DB, else
// DataDir()/lexsona.db.
func DefaultPath() string {
	if p := os.Getenv("LEXSONA_DB"); p != "" {
		return p
	}
	return filepath.Join(DataDir(), "lexsona.db")
}
