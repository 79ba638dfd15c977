package hooks

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lexsona/lexsona/engine"
)

// MaxAgentFileSize bounds the AGENTS.md or CLAUDE.md WriteAgentFile reads.
const MaxAgentFileSize = 4 << 20

// WriteResult says what WriteAgentFile did.
type WriteResult struct {
	Path    string `json:"path"`
	Format  string `json:"format"`
	Created bool   `json:"created"` // the file did not exist
	Changed bool   `json:"changed"` // false: the file already held this persona and was not touched
}

// WriteAgentFile writes prompt (a snapshot's prompt block) into path in
// format: for agents-md and claude-md the managed block is replaced or
// appended (see Merge), for cursor-rule the whole file is written. When the
// result equals the file's bytes nothing is written, so the modification time
// stays. Otherwise the file is replaced atomically (a temporary file in the
// same folder, renamed over it) with its permission bits kept (0644 for a new
// file); missing parent folders are created. Errors: EINVALID for an unknown
// format, malformed markers or a path that is a folder; ETOOLARGE for a file
// over MaxAgentFileSize; EINTERNAL (naming the file and the system error) when the file cannot be read or
// written.
func WriteAgentFile(path, format, prompt string) (WriteResult, error) {
	res := WriteResult{Path: path, Format: format}
	content, err := Render(format, prompt)
	if err != nil {
		return res, err
	}
	old, mode, err := readExisting(path)
	if errors.Is(err, fs.ErrNotExist) {
		res.Created, mode = true, 0o644
	} else if err != nil {
		return res, err
	}
	if format != FormatCursorRule {
		if content, err = Merge(string(old), content); err != nil {
			return res, engine.Errorf(engine.EINVALID, "%s: %s", path, engine.ErrorMessage(err))
		}
	}
	if !res.Created && bytes.Equal(old, []byte(content)) {
		return res, nil
	}
	if err := atomicWrite(path, []byte(content), mode); err != nil {
		return res, err
	}
	res.Changed = true
	return res, nil
}

// readExisting reads path and its permission bits; the error wraps
// fs.ErrNotExist when there is no such file.
func readExisting(path string) ([]byte, fs.FileMode, error) {
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
	if st.Size() > MaxAgentFileSize {
		return nil, 0, engine.Errorf(engine.ETOOLARGE, "%s is larger than %d bytes", path, MaxAgentFileSize)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, engine.Errorf(engine.EINTERNAL, "cannot read %s: %v", path, err)
	}
	return data, st.Mode().Perm(), nil
}

// atomicWrite writes data to a temporary file next to path and renames it
// over path, so that a reader sees the old file or the new one, never a part.
func atomicWrite(path string, data []byte, mode fs.FileMode) error {
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
