// Package datadir names the folder where LexSona keeps its data by default,
// so that the store, the classifier's calibration files and the model cache
// agree on it without depending on one another.
package datadir

import (
	"os"
	"path/filepath"
)

// Dir is where LexSona keeps its data by default: $LEXSONA_DATA, else
// $XDG_DATA_HOME/lexsona, else ~/.local/share/lexsona (./lexsona-data when
// there is no home directory).
func Dir() string {
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
