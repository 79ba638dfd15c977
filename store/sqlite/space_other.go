//go:build !(linux || darwin || freebsd)

package sqlite

// freeSpace cannot tell the free space here: ok is false.
func freeSpace(string) (free uint64, ok bool) { return 0, false }

// readOnlyNow cannot tell here whether the file became read-only: false.
func readOnlyNow(string) bool { return false }
