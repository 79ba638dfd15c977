//go:build linux || darwin || freebsd

package sqlite

import (
	"errors"
	"os"
	"syscall"
)

// freeSpace returns the bytes this process may still write on the file
// system holding dir (root may use the blocks kept for it); ok is false
// when that cannot be read.
func freeSpace(dir string) (free uint64, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	blocks := uint64(st.Bavail)
	if os.Geteuid() == 0 {
		blocks = uint64(st.Bfree)
	}
	return blocks * uint64(st.Bsize), true
}

// readOnlyNow reports whether the file at path can no longer be written,
// even through a descriptor already open: its file system is read-only
// (EROFS: remounted so after an error, say) or it has the immutable
// attribute (EPERM). It asks access(2), which opens nothing: closing a
// descriptor of the database file would drop this process's SQLite locks.
func readOnlyNow(path string) bool {
	const wOK = 2 // W_OK
	err := syscall.Access(path, wOK)
	return errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EPERM)
}
