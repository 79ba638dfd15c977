package hooks

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/lexsona/lexsona/engine"
)

// MaxProjectFileSize bounds each project file the hooks read
// (.lexsona.yaml, .git/config): 64 KiB, far above any real one.
const MaxProjectFileSize = 64 << 10

// readProjectFile returns the contents of path when it is a regular file of
// at most MaxProjectFileSize bytes. It opens the file without blocking
// (O_NONBLOCK, so a FIFO never holds the caller), checks that what it opened
// — not the name, which a symlink may redirect — is a regular file, and reads
// at most the cap and one byte more, so a device such as /dev/zero or a file
// growing under it cannot exhaust memory.
//
// Errors: one wrapping fs.ErrNotExist when path is absent; EINVALID naming
// path when it is not a regular file (a FIFO, a device, a folder) or is
// larger than the cap, or cannot be read.
func readProjectFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
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
