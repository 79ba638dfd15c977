package hooks

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/lexsona/lexsona/engine"
)

// MaxProjectFileSize bounds each project file the hooks read
// (.lexsona.yaml, .git/config): 64 KiB, far above any real one.
const MaxProjectFileSize = 64 << 10

// projectFS opens the files of a project: dirFS the command hook's own
// (the user's files, as the user's process sees them), rootFS those under
// one of the service's hook roots, never through a link that leaves it.
type projectFS interface {
	openFile(name string, flag int) (*os.File, error)
	exists(name string) bool
}

// dirFS opens paths as they are.
type dirFS struct{}

func (dirFS) openFile(name string, flag int) (*os.File, error) { return os.OpenFile(name, flag, 0) }

func (dirFS) exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// rootFS opens paths relative to an os.Root: a name, or a link in it, that
// leads out of the root is refused by the kernel-checked walk itself, not
// by a check made before the open (which a swapped link would outrun).
// Such a file counts as absent.
type rootFS struct {
	root *os.Root
	base string // the root's path, which names are given under
}

func (r rootFS) rel(name string) (string, error) {
	rel, err := filepath.Rel(r.base, name)
	if err != nil || !within(name, r.base) {
		return "", fs.ErrNotExist
	}
	return rel, nil
}

func (r rootFS) openFile(name string, flag int) (*os.File, error) {
	rel, err := r.rel(name)
	if err != nil {
		return nil, err
	}
	f, err := r.root.OpenFile(rel, flag, 0)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		// Out of the root, or not openable: as absent, so that nothing of
		// what lies outside (even whether it exists) reaches the caller.
		return nil, fs.ErrNotExist
	}
	return f, err
}

func (r rootFS) exists(name string) bool {
	rel, err := r.rel(name)
	if err != nil {
		return false
	}
	_, err = r.root.Stat(rel)
	return err == nil
}

// readProjectFileIn returns the contents of path, opened through fsys, when
// it is a regular file of at most MaxProjectFileSize bytes. It opens the
// file without blocking (O_NONBLOCK, so a FIFO never holds the caller),
// checks that what it opened — not the name, which a symlink may redirect —
// is a regular file, and reads at most the cap and one byte more, so a
// device such as /dev/zero or a file growing under it cannot exhaust memory.
//
// Errors: one wrapping fs.ErrNotExist when path is absent; EINVALID naming
// path when it is not a regular file (a FIFO, a device, a folder) or is
// larger than the cap, or cannot be read.
func readProjectFileIn(fsys projectFS, path string) ([]byte, error) {
	f, err := fsys.openFile(path, os.O_RDONLY|syscall.O_NONBLOCK)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "cannot read %s: %v", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "cannot read %s: %v", path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, engine.Errorf(engine.EINVALID, "%s is not a regular file (%s): not read", path, info.Mode().Type())
	}
	if info.Size() > MaxProjectFileSize {
		return nil, engine.Errorf(engine.EINVALID, "%s is %d bytes, over the %d a project file may have: not read", path, info.Size(), MaxProjectFileSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxProjectFileSize+1))
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "cannot read %s: %v", path, err)
	}
	if len(data) > MaxProjectFileSize {
		return nil, engine.Errorf(engine.EINVALID, "%s grew past the %d bytes a project file may have: not read", path, MaxProjectFileSize)
	}
	return data, nil
}
