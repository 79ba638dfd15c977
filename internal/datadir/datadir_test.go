package datadir

import (
	"path/filepath"
	"testing"
)

func TestDirs(t *testing.T) {
	const home = "/home/u"
	share := filepath.Join(home, ".local", "share", "lexsona")
	tests := []struct {
		name, data, xdg, home string
		dir, user             string
	}{
		{"defaults", "", "", home, share, share},
		{"XDG_DATA_HOME", "", "/xdg", home, "/xdg/lexsona", "/xdg/lexsona"},
		{"relative XDG_DATA_HOME is ignored", "", "rel/xdg", home, share, share},
		{"LEXSONA_DATA moves the data, not the installed files", "/data", "/xdg", home, "/data", "/xdg/lexsona"},
		{"no home folder", "", "", "", Fallback, ""},
		{"no home folder, XDG_DATA_HOME", "", "/xdg", "", "/xdg/lexsona", "/xdg/lexsona"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user := User(tt.xdg, tt.home)
			if user != tt.user {
				t.Errorf("User(%q, %q) = %q, want %q", tt.xdg, tt.home, user, tt.user)
			}
			dir := Dir(tt.data, user)
			if dir != tt.dir {
				t.Errorf("Dir(%q, %q) = %q, want %q", tt.data, user, dir, tt.dir)
			}
			if got, want := Calibration(dir), filepath.Join(tt.dir, "calibration"); got != want {
				t.Errorf("Calibration(%q) = %q, want %q", dir, got, want)
			}
		})
	}
}
