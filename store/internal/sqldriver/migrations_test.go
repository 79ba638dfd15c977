package sqldriver

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
)

func TestLoadMigrations(t *testing.T) {
	fsys := fstest.MapFS{
		"002_second.sql": {Data: []byte("B")},
		"001_first.sql":  {Data: []byte("A")},
		"README":         {Data: []byte("not a migration")},
	}
	got, err := LoadMigrations(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []Migration{{1, "first", "A"}, {2, "second", "B"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("LoadMigrations (-want +got):\n%s", d)
	}
	if v := LatestVersion(fsys); v != 2 {
		t.Errorf("LatestVersion = %d, want 2", v)
	}
}

func TestLoadMigrationsRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
	}{
		{"gap", fstest.MapFS{"001_a.sql": {}, "003_c.sql": {}}},
		{"duplicate", fstest.MapFS{"001_a.sql": {}, "001_b.sql": {}}},
		{"bad name", fstest.MapFS{"001_a.sql": {}, "2-b.sql": {}}},
		{"starts at 2", fstest.MapFS{"002_a.sql": {}}},
		{"empty", fstest.MapFS{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := LoadMigrations(tc.fsys); err == nil {
				t.Error("LoadMigrations accepted it")
			}
			if v := LatestVersion(tc.fsys); v != 0 {
				t.Errorf("LatestVersion = %d, want 0", v)
			}
		})
	}
}

func TestNewerSchema(t *testing.T) {
	err := NewerSchema(7, 5)
	if engine.ErrorCode(err) != engine.EUNAVAILABLE {
		t.Errorf("code of %v, want %s", err, engine.EUNAVAILABLE)
	}
	want := "database schema version 7 is newer than this lexsona build knows (5): upgrade lexsona"
	if got := engine.ErrorMessage(err); got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}
