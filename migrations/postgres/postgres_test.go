package postgres

import (
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestFilesAreNumbered checks that every embedded file is NNN_name.sql, that
// the numbers run 1, 2, 3… without gaps, and that no file opens or commits
// a transaction of its own (the driver runs each in its own transaction).
func TestFilesAreNumbered(t *testing.T) {
	names, err := fs.Glob(FS, "*")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no migration files embedded")
	}
	pattern := regexp.MustCompile(`^(\d{3})_[a-z0-9_]+\.sql$`)
	for i, name := range names { // fs.Glob returns names sorted
		m := pattern.FindStringSubmatch(name)
		if m == nil {
			t.Fatalf("%s: want NNN_name.sql", name)
		}
		if v, _ := strconv.Atoi(m[1]); v != i+1 {
			t.Fatalf("%s: version %d, want %d (numbers must run from 001 without gaps)", name, v, i+1)
		}
		body, err := fs.ReadFile(FS, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(body), "\n") {
			switch l := strings.ToUpper(strings.TrimSpace(line)); l {
			case "BEGIN;", "BEGIN TRANSACTION;", "COMMIT;", "START TRANSACTION;":
				t.Errorf("%s: has %q; the driver runs each file in its own transaction", name, line)
			}
		}
	}
}
