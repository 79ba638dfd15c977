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
