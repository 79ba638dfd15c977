package memory

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportHeaderSource: the header names the store it was read from by
// driver and file name, never by where the file lies on the machine.
func TestExportHeaderSource(t *testing.T) {
	s, db := newService(t, "sqlite")
	lines := exportLines(mustExport(t, s))
	var head exportLine
	if err := json.Unmarshal([]byte(lines[0]), &head); err != nil {
		t.Fatal(err)
	}
	if want := "sqlite:" + filepath.Base(db.Path()); head.Source != want {
		t.Errorf("header source %q, want %q", head.Source, want)
	}
	if dir := filepath.Dir(db.Path()); strings.Contains(lines[0], dir) {
		t.Errorf("the header %s holds the store's folder %s", lines[0], dir)
	}
}

func TestExportSource(t *testing.T) {
	for loc, want := range map[string]string{
		"/home/alice/.local/share/lexsona/lexsona.db":                         "sqlite:lexsona.db",
		"/srv/lexsona/tenants/alice.db":                                       "sqlite:alice.db",
		"postgres://lexsona@db.example:5432/team?search_path=lexsona_t_alice": "postgres:team",
		"postgresql://db.example/":                                            "postgres",
	} {
		if got := exportSource(loc); got != want {
			t.Errorf("exportSource(%q) = %q, want %q", loc, got, want)
		}
	}
}
