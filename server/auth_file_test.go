package server

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

func TestLoadAPIKeysFile(t *testing.T) {
	const r1, w1, w2 = "read-0123456789abcdef", "write-0123456789abcdef", "bare-0123456789abcdef"
	for _, tc := range []struct {
		name     string
		content  string
		mode     os.FileMode
		wantErr  string // "" = loads
		wantRead int
		wantW    int
		unixOnly bool
	}{
		{name: "one per line, comments", content: "# keys of the API\nread:" + r1 + "\n\nwrite:" + w1 + "\n" + w2 + "\n", mode: 0o600, wantRead: 1, wantW: 2},
		{name: "comma-separated", content: "read:" + r1 + ",write:" + w1, mode: 0o600, wantRead: 1, wantW: 1},
		{name: "CRLF lines", content: "read:" + r1 + "\r\nwrite:" + w1 + "\r\n", mode: 0o400, wantRead: 1, wantW: 1},
		{name: "group readable", content: w1, mode: 0o640, wantErr: "chmod 600", unixOnly: true},
		{name: "world readable", content: w1, mode: 0o644, wantErr: "mode 0644", unixOnly: true},
		{name: "group writable", content: w1, mode: 0o620, wantErr: "chmod 600", unixOnly: true},
		{name: "other executable", content: w1, mode: 0o601, wantErr: "chmod 600", unixOnly: true},
		{name: "empty", content: "# nothing yet\n", mode: 0o600, wantErr: "holds no key"},
		{name: "short key", content: "read:" + r1 + "\nwrite:short", mode: 0o600, wantErr: "line 2: the key is 5 characters long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.unixOnly && runtime.GOOS == "windows" {
				t.Skip("file modes are not checked on Windows")
			}
			path := filepath.Join(t.TempDir(), "keys")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.mode); err != nil {
				t.Fatal(err)
			}
			keys, err := LoadAPIKeysFile(path)
			if tc.wantErr != "" {
				if engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want EINVALID with %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "short") && strings.Contains(err.Error(), "write:short") {
					t.Errorf("the message shows the key: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(keys.Read) != tc.wantRead || len(keys.Write) != tc.wantW {
				t.Errorf("keys: %d read, %d write; want %d, %d", len(keys.Read), len(keys.Write), tc.wantRead, tc.wantW)
			}
		})
	}
	if _, err := LoadAPIKeysFile(filepath.Join(t.TempDir(), "missing")); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("missing file: %v", err)
	}
	if _, err := LoadAPIKeysFile(t.TempDir()); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("a folder: %v", err)
	}
}
