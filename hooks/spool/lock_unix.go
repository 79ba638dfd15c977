//go:build unix

package spool

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// tryLock takes the spool's drain lock without waiting: ok is false when
// another process holds it. The lock goes with the process, so a drainer
// that dies never leaves it taken.
func (s *Spool) tryLock() (unlock func(), ok bool, err error) {
	f, err := os.OpenFile(filepath.Join(s.dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, true, nil
}
