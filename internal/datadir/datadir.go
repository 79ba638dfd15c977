// Package datadir names the folders where LexSona keeps its data by default,
// so that the store, the classifier's calibration files, the model cache and
// `make install` agree on them without depending on one another. It reads
// no environment: the values come from the configuration (internal/config).
package datadir

import "path/filepath"

// Fallback is the data folder when neither LEXSONA_DATA nor a home folder
// names one: ./lexsona-data.
const Fallback = "lexsona-data"

// DBFile is the name of the SQLite database file in a data folder.
const DBFile = "lexsona.db"

// Dir is where LexSona keeps its data by default: data (the value of
// LEXSONA_DATA) when it is set, else user (User's answer), else Fallback.
func Dir(data, user string) string {
	if data != "" {
		return data
	}
	if user != "" {
		return user
	}
	return Fallback
}

// User is the user's own LexSona data folder: <xdgDataHome>/lexsona when
// xdgDataHome (the value of XDG_DATA_HOME) is an absolute path, else
// <home>/.local/share/lexsona; "" when home is "" too. `make install`
// copies the model and ONNX Runtime into it, where an installed binary looks
// for them whatever LEXSONA_DATA says.
func User(xdgDataHome, home string) string {
	if xdgDataHome != "" && filepath.IsAbs(xdgDataHome) {
		return filepath.Join(xdgDataHome, "lexsona")
	}
	if home != "" {
		return filepath.Join(home, ".local", "share", "lexsona")
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

// Calibration is the calibration folder of the data folder dataDir:
// <dataDir>/calibration.
func Calibration(dataDir string) string {
	return filepath.Join(dataDir, CalibrationDir)
}
