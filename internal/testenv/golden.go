package testenv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Golden compares got with testdata/name, rewriting the file first when
// update is set (a package's -update flag).
func Golden(tb testing.TB, name string, got []byte, update bool) {
	tb.Helper()
	path := filepath.Join("testdata", name)
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("golden file %s: %v (run with -update to create it)", path, err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		tb.Errorf("%s differs (-want +got):\n%s", path, d)
	}
}

// MustRead returns the contents of path, failing the test when it cannot
// be read.
func MustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}
