package datadir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirs(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skipf("no home folder: %v", err)
	}
	share := filepath.Join(home, ".local", "share", "lexsona")
	tests := []struct {
		name, data, xdg string
		dir, user       string
	}{
		{"defaults", "", "", share, share},
		{"XDG_DATA_HOME", "", "/xdg", "/xdg/lexsona", "/xdg/lexsona"},
		{"relative XDG_DATA_HOME is ignored", "", "rel/xdg", share, share},
		{"LEXSONA_DATA moves the data, not the installed files", "/data", "/xdg", "/data", "/xdg/lexsona"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("LEXSONA_DATA", tt.data)
			t.Setenv("XDG_DATA_HOME", tt.xdg)
			if got := Dir(); got != tt.dir {
				t.Errorf("Dir() = %q, want %q", got, tt.dir)
			}
			if got := User(); got != tt.user {
				t.Errorf("User() = %q, want %q", got, tt.user)
			}
			if got, want := Calibration(), filepath.Join(tt.dir, "calibration"); got != want {
				t.Errorf("Calibration() = %q, want %q", got, want)
			}
		})
	}
}
