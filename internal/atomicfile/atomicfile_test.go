package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

func TestWriteThenRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "settings.json")
	if _, _, err := Read(path, 10); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("absent file: %v", err)
	}
	if err := Write(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, mode, err := Read(path, 10)
	if err != nil || string(data) != "{}\n" || mode != 0o600 {
		t.Errorf("read %q %v %v", data, mode, err)
	}
	if _, _, err := Read(path, 2); engine.ErrorCode(err) != engine.ETOOLARGE {
		t.Errorf("over the bound: %v", err)
	}
	if _, _, err := Read(dir, 10); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("a folder: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left beside it: %v", entries)
	}
}
