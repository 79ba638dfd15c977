package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// exportRules exports a new memory holding user rules ids (in id order
// in the file) and returns the export's lines.
func exportRules(t *testing.T, ids ...string) []string {
	t.Helper()
	src := newCLI(t)
	for _, id := range ids {
		src.mustAddRule(id, "code_style", "should")
	}
	code, export, stderr := src.run("export")
	if code != 0 {
		t.Fatalf("export: exit %d, %s", code, stderr)
	}
	return strings.SplitAfter(strings.TrimSuffix(export, "\n"), "\n")
}

// writeLines writes lines to a new file and returns its path.
func writeLines(t *testing.T, lines []string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestImportRefusedLeavesNothing: a file whose last rule has a malformed
// id exits 2 naming its line, and the memory it was imported into has
// none of the rules or events of the lines before it.
func TestImportRefusedLeavesNothing(t *testing.T) {
	lines := exportRules(t, "user.first", "user.second", "user.third")
	last := -1
	for i, l := range lines {
		if strings.Contains(l, `{"kind":"rule","rule":{"rule_id":"user.third"`) {
			last = i
		}
	}
	if last < 0 {
		t.Fatalf("no rule record of user.third in %q", lines)
	}
	lines[last] = strings.Replace(lines[last], `"rule_id":"user.third"`, `"rule_id":"User Third"`, 1)
	file := writeLines(t, lines)
	dst := newCLI(t)
	dst.mustAddRule("user.own", "code_style", "should")
	code, _, stderr := dst.run("import", file)
	if code != 2 || !strings.Contains(stderr, "line "+strconv.Itoa(last+1)+": rule record: malformed rule id") {
		t.Fatalf("import: exit %d, stderr %q; want 2 naming line %d and the malformed id", code, stderr, last+1)
	}
	for _, id := range []string{"user.first", "user.second"} {
		if n := dst.eventCount(id); n != -1 {
			t.Errorf("the refused import left rule %s with %d events", id, n)
		}
	}
	if n := dst.eventCount("user.own"); n != 1 {
		t.Errorf("the memory's own rule has %d events, want 1", n)
	}
}

// TestImportSaysWhatItKeptOfASharedRule: importing a newer export of a
// rule the memory has says, for that rule, how many of the file's events
// it left out, and changes nothing; --merge appends them and says so.
func TestImportSaysWhatItKeptOfASharedRule(t *testing.T) {
	src := newCLI(t)
	src.mustAddRule("user.shared", "code_style", "should")
	src.mustJSON("record", "--rule", "user.shared", "--text", "keep the shared rule")
	code, first, stderr := src.run("export")
	if code != 0 {
		t.Fatalf("export: exit %d, %s", code, stderr)
	}
	for _, text := range []string{"again the shared rule", "and once more", "still the shared rule"} {
		src.mustJSON("record", "--rule", "user.shared", "--text", text)
	}
	code, second, stderr := src.run("export")
	if code != 0 {
		t.Fatalf("export: exit %d, %s", code, stderr)
	}
	dst := newCLI(t)
	if code, _, stderr := dst.run("import", writeLines(t, []string{first})); code != 0 {
		t.Fatalf("first import: exit %d, %s", code, stderr)
	}
	newer := writeLines(t, []string{second})
	code, out, stderr := dst.run("import", newer)
	want := "rule user.shared: kept as this memory has it (2 events, alpha 3, beta 5); 3 of the file's 5 events are not in it and were not imported, 3 of them corrections that --merge appends"
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("import: exit %d, stdout %q, stderr %q; want it to say %q", code, out, stderr, want)
	}
	if n := dst.eventCount("user.shared"); n != 2 {
		t.Errorf("the import without --merge left %d events, want the memory's 2", n)
	}
	code, out, stderr = dst.run("import", newer, "--merge")
	want = "rule user.shared: merged 3 of the file's 5 events (2 already here): now 6 events, alpha 6, beta 5"
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("import --merge: exit %d, stdout %q, stderr %q; want it to say %q", code, out, stderr, want)
	}
	if n := dst.eventCount("user.shared"); n != 6 {
		t.Errorf("after --merge the rule has %d events, want 6 (2 + 3 merged + the merge's own)", n)
	}
}

// TestRefusedImportCreatesNothing: a refused file leaves no database
// behind, neither at a --db path that did not exist nor as a new tenant's
// store; the export it came from names no folder of the machine.
func TestRefusedImportCreatesNothing(t *testing.T) {
	t.Setenv("LEXSONA_TENANT", "")
	lines := exportRules(t, "user.only")
	if strings.Contains(lines[0], string(filepath.Separator)+"lexsona.db") || !strings.Contains(lines[0], `"source":"sqlite:lexsona.db"`) {
		t.Errorf("export header %s: want the source sqlite:lexsona.db, no path", lines[0])
	}
	bad := writeLines(t, append(append([]string{}, lines[:len(lines)-1]...), `{"kind":"end"}`+"\n"))
	dst := newCLI(t)
	for _, args := range [][]string{{"import", bad}, {"import", bad, "--tenant", "bob"}} {
		if code, _, stderr := dst.run(args...); code != 2 || !strings.Contains(stderr, "truncated or was edited") {
			t.Errorf("lexsona %s: exit %d, %s; want 2, the file refused", strings.Join(args, " "), code, stderr)
		}
	}
	dir := filepath.Dir(dst.db)
	for _, p := range []string{dst.db, filepath.Join(dir, "tenants", "bob.db"), filepath.Join(dir, "tenants")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("the refused import created %s (%v)", p, err)
		}
	}
}
