//go:build !unix

package spool

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// tryLock takes the spool's drain lock without waiting, as a file created
// exclusively: ok is false when it exists.
func (s *Spool) tryLock() (unlock func(), ok bool, err error) {
	path := filepath.Join(s.dir, ".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	f.Close()
	return func() { os.Remove(path) }, true, nil
}
