package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportFromStdin: `lexsona import -` reads the export from the
// command's standard input.
func TestImportFromStdin(t *testing.T) {
	src := newCLI(t)
	src.mustAddRule("user.from-stdin", "code_style", "should")
	code, export, stderr := src.run("export")
	if code != 0 {
		t.Fatalf("export: exit %d, %s", code, stderr)
	}
	dst := newCLI(t)
	var out, errb bytes.Buffer
	code = run(context.Background(), []string{"--db", dst.db, "--json", "import", "-"}, strings.NewReader(export), &out, &errb)
	if code != 0 || !strings.Contains(out.String(), `"rules": 1`) {
		t.Fatalf("import - : exit %d, stdout %s, stderr %s; want 0 and one rule added", code, out.String(), errb.String())
	}
}

// TestExportOfAMissingFile: exporting a SQLite file that does not exist (a
// misspelt --db) fails naming the path, creates nothing, and writes no
// empty export that an import would take for a memory.
func TestExportOfAMissingFile(t *testing.T) {
	c := newCLI(t)
	missing := filepath.Join(t.TempDir(), "typo.db")
	code, stdout, stderr := c.run("export", "--db", missing)
	if code != 1 || stdout != "" || !strings.Contains(stderr, "no LexSona database at "+missing) {
		t.Fatalf("export --db %s: exit %d, stdout %q, stderr %q; want 1, nothing on stdout, and the path named", missing, code, stdout, stderr)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("export created %s: %v", missing, err)
	}
}

// TestImportEmbedsWhatItAdds: the texts an import adds are embedded by the
// import itself, so a server already running on that store matches the
// imported rules at its next refresh; a registry sync afterwards has
// nothing left to embed.
func TestImportEmbedsWhatItAdds(t *testing.T) {
	file := exportOneRule(t, "user.imported-rule")
	dst := newCLI(t)
	dst.mustJSON("registry", "sync") // the store a server would have readied
	if code, _, stderr := dst.run("import", file); code != 0 {
		t.Fatalf("import: exit %d, %s", code, stderr)
	}
	sum := dst.mustJSON("registry", "sync")
	if n, _ := sum["embedded"].(float64); n != 0 {
		t.Errorf("registry sync after the import embedded %v texts, want 0: the import left them without vectors (%v)", n, sum)
	}
}

// TestExportImportTenant: --tenant moves one tenant's memory: import
// creates the tenant's store beside --db (the default memory untouched),
// export reads it back, and exporting a tenant that has no memory is
// refused without creating one.
func TestExportImportTenant(t *testing.T) {
	t.Setenv("LEXSONA_TENANT", "")
	file := exportOneRule(t, "user.tenant-moved")
	dst := newCLI(t)
	if code, _, stderr := dst.run("import", file, "--tenant", "alice"); code != 0 {
		t.Fatalf("import --tenant alice: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dst.db), "tenants", "alice.db")); err != nil {
		t.Errorf("alice's store: %v", err)
	}
	if n := dst.eventCount("user.tenant-moved"); n != -1 {
		t.Errorf("the default memory got the tenant's rule (%d events)", n)
	}
	code, again, stderr := dst.run("export", "--tenant", "alice")
	if code != 0 || !strings.Contains(again, `"user.tenant-moved"`) {
		t.Fatalf("export --tenant alice: exit %d, stderr %s; the rule is missing from %q", code, stderr, again)
	}
	code, out, stderr := dst.run("export", "--tenant", "bob")
	if code != 1 || out != "" || !strings.Contains(stderr, "tenant bob has no memory yet (no file "+filepath.Join(filepath.Dir(dst.db), "tenants", "bob.db")) {
		t.Errorf("export --tenant bob: exit %d, stdout %q, stderr %q; want 1 naming where bob's store would be", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dst.db), "tenants", "bob.db")); !os.IsNotExist(err) {
		t.Errorf("exporting bob created his store: %v", err)
	}
	if code, _, stderr := dst.run("export", "--tenant", "Not A Name"); code != 2 {
		t.Errorf("export --tenant 'Not A Name': exit %d, %s; want 2", code, stderr)
	}
}

// exportOneRule exports a new memory holding one user rule, id, into a file
// and returns its path.
func exportOneRule(t *testing.T, id string) string {
	t.Helper()
	src := newCLI(t)
	src.mustAddRule(id, "code_style", "should")
	code, export, stderr := src.run("export")
	if code != 0 {
		t.Fatalf("export: exit %d, %s", code, stderr)
	}
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	if err := os.WriteFile(file, []byte(export), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}
