package models_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lexsona/lexsona/models"
)

func TestDefaultModelDir(t *testing.T) {
	home, _ := os.UserHomeDir()
	tests := []struct{ env, xdg, want string }{
		{"/models/mini", "/xdg", "/models/mini"},
		{"", "/xdg", "/xdg/lexsona/models/all-MiniLM-L6-v2"},
		{"", "relative/xdg", filepath.Join(home, ".local/share/lexsona/models/all-MiniLM-L6-v2")},
		{"", "", filepath.Join(home, ".local/share/lexsona/models/all-MiniLM-L6-v2")},
	}
	for _, tt := range tests {
		t.Setenv("LEXSONA_MODEL_DIR", tt.env)
		t.Setenv("XDG_DATA_HOME", tt.xdg)
		if got := models.DefaultModelDir(); got != tt.want {
			t.Errorf("LEXSONA_MODEL_DIR=%q XDG_DATA_HOME=%q: %q, want %q", tt.env, tt.xdg, got, tt.want)
		}
	}
}

func TestValidateModelDir(t *testing.T) {
	tests := []struct {
		dir string
		ok  bool
	}{
		{"/a/b/c", true},
		{"/a/b/../c", true},
		{"../shared/models/m", true},
		{"../../x/./y", true},
		{"models/m", true},
		{"models/../m", true},
		{"models/../../m", false},
		{"/a/../../etc", false},
		{"/..", false},
		{"a/b/../../../c", false},
		{"", false},
	}
	for _, tt := range tests {
		if err := models.ValidateModelDir(tt.dir); (err == nil) != tt.ok {
			t.Errorf("models.ValidateModelDir(%q) = %v, want ok=%v", tt.dir, err, tt.ok)
		}
	}
}
