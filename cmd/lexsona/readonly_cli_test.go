package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// storeFiles returns the content of the SQLite file and of its write-ahead
// log ("" when there is none): two equal results mean nothing was written.
func storeFiles(t *testing.T, db string) (string, string) {
	t.Helper()
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	wal, err := os.ReadFile(db + "-wal")
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(data), string(wal)
}

// TestReadOnlyCommandsWriteNothing runs every command that only reads
// against a store holding rules, events, a pending confirmation and the
// registry in force, and checks that the database file and its log are
// byte for byte what they were: none of them syncs the registry, migrates
// or records anything. The file is also made read-only (0444, folder 0555),
// where the store then refuses every write (for a user other than root).
func TestReadOnlyCommandsWriteNothing(t *testing.T) {
	t.Setenv("LEXSONA_DATA", t.TempDir())
	c := newCLI(t)
	c.mustAddRule("tool.pnpm-not-npm", "general", "should", "--project", "api")
	c.mustJSON("record", "--rule", "tool.pnpm-not-npm", "--text", "pnpm, not npm")
	c.mustJSON("record", "--text", "use pnpm here instead of npm please")
	c.mustJSON("registry", "sync")
	reg := filepath.Join(t.TempDir(), "registry.yaml")
	if err := os.WriteFile(reg, []byte("version: 1\nrules:\n  - rule_id: team.use-just\n    category: tool_preference\n    severity: should\n    template: \"Run tasks with just, not make\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	dir := filepath.Dir(c.db)
	if err := os.Chmod(c.db, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.Chmod(c.db, 0o644) })
	db, wal := storeFiles(t, c.db)

	for _, args := range [][]string{
		{"rules", "list"},
		{"rules", "list", "--json"},
		{"rules", "show", "tool.pnpm-not-npm"},
		{"why", "tool.pnpm-not-npm"},
		{"why", "--project", "api"},
		{"snapshot", "--project", "api"},
		{"snapshot", "--format", "prompt"},
		{"confirm"},
		{"confirm", "--json"},
		{"config", "show"},
		{"export"},
		{"version"},
		{"doctor", "--offline"},
		{"registry", "default"},
		{"--registry", reg, "registry", "sync", "--dry-run"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errs := c.run(args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr %s", code, errs)
			}
			if strings.TrimSpace(out) == "" {
				t.Errorf("no output")
			}
			if d, w := storeFiles(t, c.db); d != db || w != wal {
				t.Errorf("the store changed: file %d → %d bytes (equal %v), log %d → %d bytes",
					len(db), len(d), d == db, len(wal), len(w))
			}
		})
	}
}
