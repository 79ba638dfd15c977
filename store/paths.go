package store

import (
	"path/filepath"

	"github.com/lexsona/lexsona/internal/datadir"
)

// DefaultPath is the database file opened when nothing names one — no
// --db, no LEXSONA_DB, no data folder: lexsona.db in datadir.Fallback
// (./lexsona-data/lexsona.db). It reads no environment; the command line
// passes the configured file instead (config.Config.DBPath).
func DefaultPath() string {
	return filepath.Join(datadir.Fallback, datadir.DBFile)
}
