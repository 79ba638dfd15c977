package testenv

import (
	"encoding/json"
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

// RecordedJSON is the figures kept in file as JSON, decoded into want:
// when record is set it first writes got there (indented), so the test
// then compares got with itself. It fails the test when file cannot be
// read or decoded.
func RecordedJSON[T any](tb testing.TB, file string, got T, record bool) (want T) {
	tb.Helper()
	if record {
		data, err := json.MarshalIndent(got, "", "  ")
		if err == nil {
			err = os.WriteFile(file, append(data, '\n'), 0o644)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	if err := json.Unmarshal(MustRead(tb, file), &want); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	return want
}
