// Package datadir names the folders where LexSona keeps its data by default,
// so that the store, the classifier's calibration files, the model cache and
// `make install` agree on them without depending on one another.
package datadir

import (
	"os"
	"path/filepath"
)

// Dir is where LexSona keeps its data by default: $LEXSONA_DATA, else
// User() (./lexsona-data when there is no home directory).
func Dir() string {
	if d := os.Getenv("LEXSONA_DATA"); d != "" {
		return d
	}
	if u := User(); u != "" {
		return u
	}
	return "lexsona-data"
}

// User is the user's own LexSona data folder: $XDG_DATA_HOME/lexsona when
// XDG_DATA_HOME is an absolute path, else ~/.local/share/lexsona; "" when
// there is no home directory. `make install` copies the model and ONNX
// Runtime into it, where an installed binary looks for them
// whatever $LEXSONA_DATA says.
func User() string {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "lexsona")
	}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return filepath.Join(h, ".local", "share", "lexsona")
	}
	return ""
}

// The layout `make install` writes under a data folder.
const (
	// ModelsDir holds one folder per model: <data>/models/all-MiniLM-L6-v2.
	ModelsDir = "models"
	// ORTDir holds the ONNX Runtime library: <data>/ort/libonnxruntime.so.1.
	ORTDir = "ort"
	// CalibrationDir holds one calibration file per model, the one
	// `lexsona eval calibrate` writes and the classifier reads:
	// <data>/calibration/<model>.json.
	CalibrationDir = "calibration"
)

// Calibration is the calibration folder under Dir().
func Calibration() string {
	return filepath.Join(Dir(), CalibrationDir)
}
