package models_test

import (
	"path/filepath"
	"testing"

	"github.com/lexsona/lexsona/models"
)

func TestDefaultModelDir(t *testing.T) {
	tests := []struct{ modelDir, dataDir, want string }{
		{"/models/mini", "/xdg/lexsona", "/models/mini"},
		{"", "/xdg/lexsona", "/xdg/lexsona/models/all-MiniLM-L6-v2"},
		{"", "/home/u/.local/share/lexsona", "/home/u/.local/share/lexsona/models/all-MiniLM-L6-v2"},
		{"", "", filepath.Join(".lexsona", "models", "all-MiniLM-L6-v2")},
	}
	for _, tt := range tests {
		if got := models.DefaultModelDir(tt.modelDir, tt.dataDir); got != tt.want {
			t.Errorf("DefaultModelDir(%q, %q) = %q, want %q", tt.modelDir, tt.dataDir, got, tt.want)
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
