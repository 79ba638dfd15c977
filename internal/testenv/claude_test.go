package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClaudeBin(t *testing.T) {
	dir := t.TempDir()
	stub := filepath.Join(dir, "claude.exe")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\necho placeholder >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	native := filepath.Join(dir, "claude")
	f, err := os.OpenFile(native, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(placeholderMax + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	missing := filepath.Join(dir, "absent")

	for _, tc := range []struct {
		name, bin, require string
		skipped, failed    string // substrings; "" for none
	}{
		{"native", native, "1", "", ""},
		{"missing", missing, "", "make claude-deps", ""},
		{"missing, required", missing, "1", "", "make claude-deps"},
		{"placeholder", stub, "", "placeholder", ""},
		{"not executable", dir, "", "not an executable file", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(ClaudeBinEnv, tc.bin)
			t.Setenv(RequireClaudeEnv, tc.require)
			r := &recorder{TB: t}
			var got string
			done := make(chan struct{})
			go func() {
				defer close(done)
				got = ClaudeBin(r)
			}()
			<-done
			if tc.skipped == "" && tc.failed == "" && (got != tc.bin || r.skipped != "" || r.failed != "") {
				t.Errorf("ClaudeBin = %q, skipped %q, failed %q; want %q", got, r.skipped, r.failed, tc.bin)
			}
			if tc.skipped != "" && (!strings.Contains(r.skipped, tc.skipped) || r.failed != "") {
				t.Errorf("skipped %q, failed %q; want a skip saying %q", r.skipped, r.failed, tc.skipped)
			}
			if tc.failed != "" && (!strings.Contains(r.failed, tc.failed) || r.skipped != "") {
				t.Errorf("skipped %q, failed %q; want a failure saying %q", r.skipped, r.failed, tc.failed)
			}
		})
	}
}
