package setup

import (
	"path/filepath"
	"testing"
)

// TestClassifierOptions checks the calibration folder the classifier is
// given: the configured one, else the data folder's, where
// `lexsona eval calibrate` writes.
func TestClassifierOptions(t *testing.T) {
	data := t.TempDir()
	t.Setenv("LEXSONA_DATA", data)
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"default", Config{}, filepath.Join(data, "calibration")},
		{"configured", Config{CalibrationDir: "/cal"}, "/cal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClassifierOptions(tt.cfg).CalibrationDir; got != tt.want {
				t.Errorf("CalibrationDir = %q, want %q", got, tt.want)
			}
		})
	}
}
