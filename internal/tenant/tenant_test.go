package tenant

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"

	_ "github.com/lexsona/lexsona/store/postgres"
	_ "github.com/lexsona/lexsona/store/sqlite"
)

func TestCheckName(t *testing.T) {
	for _, c := range []struct {
		name, wantErr string
	}{
		{"alice", ""},
		{"team_7", ""},
		{"a", ""},
		{strings.Repeat("a", MaxNameLength), ""},
		{"", "empty"},
		{strings.Repeat("a", MaxNameLength+1), "at most 30"},
		{"Alice", "lower-case"},
		{"7team", "starting with a letter"},
		{"al-ice", "lower-case"},
		{"a b", "lower-case"},
		{"read", "reserved"},
		{"write", "reserved"},
	} {
		err := CheckName(c.name)
		if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
			t.Errorf("CheckName(%q) = %v, want %q", c.name, err, c.wantErr)
		}
		if err != nil && engine.ErrorCode(err) != engine.EINVALID {
			t.Errorf("CheckName(%q): code %s", c.name, engine.ErrorCode(err))
		}
	}
}

// TestSQLiteStores: a named tenant's store is its own file beside the
// default one, created on first open; the default tenant's is the base.
func TestSQLiteStores(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "lexsona.db")
	s := NewStores(base, nil, time.Now)
	for name, want := range map[string]string{Default: base, "alice": filepath.Join(dir, "tenants", "alice.db")} {
		if got, err := s.Location(name); err != nil || got != want {
			t.Errorf("Location(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := s.Location("Bad Name"); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("Location of a bad name: %v", err)
	}
	if _, err := s.OpenStore(context.Background(), Default); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("OpenStore(default): %v, want EINVALID", err)
	}
	db, err := s.OpenStore(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := os.Stat(filepath.Join(dir, "tenants", "alice.db")); err != nil {
		t.Errorf("alice's file: %v", err)
	}
	if _, err := os.Stat(base); !os.IsNotExist(err) {
		t.Errorf("the default store was touched: %v", err)
	}
}
