package migrations

import (
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestFilesAreNumbered checks that every embedded file is NNN_name.sql, that
// the numbers run 1, 2, 3… without gaps or duplicates, and that no file opens
// a transaction of its own (the store wraps each one in a transaction).
func TestFilesAreNumbered(t *testing.T) {
	for name, fsys := range map[string]fs.FS{"sqlite": SQLite, "postgres": Postgres} {
		t.Run(name, func(t *testing.T) { checkNumbered(t, fsys) })
	}
}

func checkNumbered(t *testing.T, fsys fs.FS) {
	names, err := fs.Glob(fsys, "*")
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
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(body), "\n") {
			switch strings.ToUpper(strings.TrimSpace(line)) {
			case "BEGIN;", "BEGIN TRANSACTION;", "BEGIN IMMEDIATE;", "START TRANSACTION;", "COMMIT;":
				t.Errorf("%s: has %q; the store runs each file in its own transaction", name, line)
			}
		}
	}
}
