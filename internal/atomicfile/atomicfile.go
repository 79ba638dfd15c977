// Package atomicfile reads a small file with its mode and replaces one
// whole: what the agent settings and instruction files that LexSona edits
// need, so that a reader sees the old file or the new one, never a part.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lexsona/lexsona/engine"
)

// Read reads path, at most max bytes, and its permission bits. Errors:
// one wrapping fs.ErrNotExist when there is no such file; EINVALID for a
// folder; ETOOLARGE past max; EINTERNAL when it cannot be read.
func Read(path string, max int64) ([]byte, fs.FileMode, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, err
	}
	if err != nil {
		return nil, 0, engine.Errorf(engine.EINTERNAL, "cannot read %s: %v", path, err)
	}
	if st.IsDir() {
		return nil, 0, engine.Errorf(engine.EINVALID, "%s is a folder, not a file", path)
	}
	if st.Size() > max {
		return nil, 0, engine.Errorf(engine.ETOOLARGE, "%s is larger than %d bytes", path, max)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, engine.Errorf(engine.EINTERNAL, "cannot read %s: %v", path, err)
	}
	return data, st.Mode().Perm(), nil
}

// Write writes data to a temporary file next to path, synced, with mode,
// and renames it over path. Errors: EINTERNAL naming what failed; nothing
// of path changes then.
func Write(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return engine.Errorf(engine.EINTERNAL, "cannot create folder %s: %v", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".lexsona-*")
	if err != nil {
		return engine.Errorf(engine.EINTERNAL, "cannot write in %s: %v", dir, err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return engine.Errorf(engine.EINTERNAL, "cannot write %s: %v", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return engine.Errorf(engine.EINTERNAL, "cannot replace %s: %v", path, err)
	}
	return nil
}
