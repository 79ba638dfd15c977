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
	src := newCLI(t)
	src.mustAddRule("user.imported-rule", "code_style", "should")
	code, export, stderr := src.run("export")
	if code != 0 {
		t.Fatalf("export: exit %d, %s", code, stderr)
	}
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	if err := os.WriteFile(file, []byte(export), 0o600); err != nil {
		t.Fatal(err)
	}
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
