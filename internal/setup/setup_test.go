package setup

import (
	"path/filepath"
	"testing"
)

// TestClassifierOptions checks the calibration folder the classifier is
// given: the configured one (the command line passes the data folder's,
// where `lexsona eval calibrate` writes: config.Config.CalibrationDir), else
// the fallback data folder's, beside store.DefaultPath().
func TestClassifierOptions(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"default", Config{}, filepath.Join("lexsona-data", "calibration")},
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
