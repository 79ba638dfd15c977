package tenant

import (
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// maxKeysFile bounds the size of an API keys file.
const maxKeysFile = 1 << 20

// LoadKeysFile reads API keys from the file at path: entries as ParseKeys
// takes them ("read:KEY", "write:KEY" or a bare write "KEY" for the
// default tenant; "TENANT:read:KEY", "TENANT:write:KEY" for a named
// tenant), one per line or comma-separated, with blank lines and lines
// starting with # ignored. On Unix the file must be readable by its owner
// only: a file that grants any permission to its group or to others is
// refused, since anyone who can read it holds the keys. Errors are
// EINVALID: the file cannot be read, its mode lets others in, it is larger
// than 1 MiB, or an entry is malformed (named by its line, never by its
// key).
func LoadKeysFile(path string) (Keys, error) {
	f, err := os.Open(path)
	if err != nil {
		return Keys{}, engine.Errorf(engine.EINVALID, "cannot read the API keys file: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Keys{}, engine.Errorf(engine.EINVALID, "cannot read the API keys file: %v", err)
	}
	if !fi.Mode().IsRegular() {
		return Keys{}, engine.Errorf(engine.EINVALID, "the API keys file %s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); runtime.GOOS != "windows" && perm&0o077 != 0 {
		return Keys{}, engine.Errorf(engine.EINVALID,
			"the API keys file %s has mode %04o: its group or other users may use it; make it readable by its owner only (chmod 600 %s)", path, perm, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeysFile+1))
	if err != nil {
		return Keys{}, engine.Errorf(engine.EINVALID, "cannot read the API keys file: %v", err)
	}
	if len(b) > maxKeysFile {
		return Keys{}, engine.Errorf(engine.EINVALID, "the API keys file %s is larger than %d bytes", path, maxKeysFile)
	}
	var keys Keys
	owner := map[string]string{}
	n := 0
	for line := range strings.Lines(string(b)) {
		n++
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, entry := range strings.Split(line, ",") {
			if entry = strings.TrimSpace(entry); entry == "" {
				continue
			}
			if err := keys.addEntry(entry, owner); err != nil {
				return Keys{}, engine.Errorf(engine.EINVALID, "the API keys file %s: line %d: %s", path, n, engine.ErrorMessage(err))
			}
		}
	}
	if keys.Empty() {
		return Keys{}, engine.Errorf(engine.EINVALID, "the API keys file %s holds no key", path)
	}
	return keys, nil
}
