package config

import (
	"path/filepath"
	"testing"
)

// TestDataPaths: the data folder, the database file and the calibration
// folder derive from LEXSONA_DATA, LEXSONA_DB, XDG_DATA_HOME and the home
// folder; the user's data folder (where `make install` puts the model and
// ONNX Runtime) from the last two only.
func TestDataPaths(t *testing.T) {
	share := filepath.Join("/home/u", ".local", "share", "lexsona")
	tests := []struct {
		name                string
		c                   Config
		user, data, db, cal string
	}{
		{"defaults", Config{Home: "/home/u"}, share, share, filepath.Join(share, "lexsona.db"), filepath.Join(share, "calibration")},
		{"XDG_DATA_HOME", Config{Home: "/home/u", XDGDataHome: "/xdg"}, "/xdg/lexsona", "/xdg/lexsona", "/xdg/lexsona/lexsona.db", "/xdg/lexsona/calibration"},
		{"relative XDG_DATA_HOME is ignored", Config{Home: "/home/u", XDGDataHome: "rel/xdg"}, share, share, filepath.Join(share, "lexsona.db"), filepath.Join(share, "calibration")},
		{"LEXSONA_DATA moves the data, not the installed files", Config{Home: "/home/u", XDGDataHome: "/xdg", Data: "/data"},
			"/xdg/lexsona", "/data", "/data/lexsona.db", "/data/calibration"},
		{"LEXSONA_DB names the database only", Config{Home: "/home/u", DB: "postgres://h/db"}, share, share, "postgres://h/db", filepath.Join(share, "calibration")},
		{"no home folder", Config{}, "", "lexsona-data", filepath.Join("lexsona-data", "lexsona.db"), filepath.Join("lexsona-data", "calibration")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.UserDataDir(); got != tt.user {
				t.Errorf("UserDataDir() = %q, want %q", got, tt.user)
			}
			if got := tt.c.DataDir(); got != tt.data {
				t.Errorf("DataDir() = %q, want %q", got, tt.data)
			}
			if got := tt.c.DBPath(); got != tt.db {
				t.Errorf("DBPath() = %q, want %q", got, tt.db)
			}
			if got := tt.c.CalibrationDir(); got != tt.cal {
				t.Errorf("CalibrationDir() = %q, want %q", got, tt.cal)
			}
		})
	}
}

func TestHFHubDir(t *testing.T) {
	tests := []struct {
		name string
		c    Config
		want string
	}{
		{"HF_HUB_CACHE first", Config{HFHubCache: "/hub", HFHome: "/hf", XDGCacheHome: "/cache", Home: "/home/u"}, "/hub"},
		{"then HF_HOME/hub", Config{HFHome: "/hf", XDGCacheHome: "/cache", Home: "/home/u"}, "/hf/hub"},
		{"then XDG_CACHE_HOME/huggingface/hub", Config{XDGCacheHome: "/cache", Home: "/home/u"}, "/cache/huggingface/hub"},
		{"a relative XDG_CACHE_HOME is ignored", Config{XDGCacheHome: "cache", Home: "/home/u"}, "/home/u/.cache/huggingface/hub"},
		{"then ~/.cache/huggingface/hub", Config{Home: "/home/u"}, "/home/u/.cache/huggingface/hub"},
		{"none can be named", Config{XDGCacheHome: "cache"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.HFHubDir(); got != tt.want {
				t.Errorf("HFHubDir() = %q, want %q", got, tt.want)
			}
		})
	}
}
