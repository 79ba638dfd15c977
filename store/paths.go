package store

import (
	"os"
	"path/filepath"

	"github.com/lexsona/lexsona/internal/datadir"
)

// DataDir is where LexSona keeps its data by default (datadir.Dir).
func DataDir() string { return datadir.Dir() }

// DefaultPath is the default database file: $LEXSONA_DB, else
// DataDir()/lexsona.db.
func DefaultPath() string {
	if p := os.Getenv("LEXSONA_DB"); p != "" {
		return p
	}
	return filepath.Join(DataDir(), "lexsona.db")
}
