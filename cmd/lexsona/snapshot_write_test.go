package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSnapshotWriteAgentFiles(t *testing.T) {
	c := newCLI(t)
	c.evidenceOnly()
	c.mustAddRule("tool.pnpm-not-npm", "tool_preference", "must", "--project", "api")
	for i := 0; i < 10; i++ {
		c.mustJSON("record", "--rule", "tool.pnpm-not-npm", "--text", "pnpm, not npm", "--at", "2025-11-20T10:00:00Z")
	}
	dir := t.TempDir()
	agents := filepath.Join(dir, "AGENTS.md")
	mdc := filepath.Join(dir, ".cursor", "rules", "lexsona.mdc")
	os.WriteFile(agents, []byte("# Team notes\n\n<!-- lexsona:begin -->\nold\n<!-- lexsona:end -->\ntail\n"), 0o640)
	for _, tc := range []struct{ format, path, want string }{
		{"agents-md", agents, "updated " + agents},
		{"cursor-rule", mdc, "created " + mdc},
	} {
		code, out, errs := c.run("snapshot", "--project", "api", "--format", tc.format, "--write", tc.path)
		if code != 0 || strings.TrimSpace(out) != tc.want+" (1 rule)" {
			t.Fatalf("%s: exit %d out %q err %s", tc.format, code, out, errs)
		}
		got, _ := os.ReadFile(tc.path)
		if !strings.Contains(string(got), "[tool.pnpm-not-npm] Text of tool.pnpm-not-npm (reinforced 10 times") {
			t.Errorf("%s lacks the rule:\n%s", tc.path, got)
		}
		past := time.Date(2021, 5, 6, 7, 8, 9, 0, time.UTC)
		os.Chtimes(tc.path, past, past)
		m := c.mustJSON("snapshot", "--project", "api", "--format", tc.format, "--write", tc.path)
		if m["changed"] != false || m["created"] != false {
			t.Errorf("second write: %v", m)
		}
		if st, _ := os.Stat(tc.path); !st.ModTime().Equal(past) {
			t.Errorf("%s: second write changed the mtime to %v", tc.path, st.ModTime())
		}
	}
	got, _ := os.ReadFile(agents)
	if !strings.HasPrefix(string(got), "# Team notes\n\n<!-- lexsona:begin -->\n") || !strings.HasSuffix(string(got), "<!-- lexsona:end -->\ntail\n") {
		t.Errorf("AGENTS.md outside the block changed:\n%s", got)
	}
	if st, _ := os.Stat(agents); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", st.Mode().Perm())
	}
	// Without --write the agent formats print what would be written.
	code, out, _ := c.run("snapshot", "--project", "api", "--format", "claude-md")
	if code != 0 || !strings.HasPrefix(out, "<!-- lexsona:begin -->\n") || !strings.HasSuffix(out, "<!-- lexsona:end -->\n") {
		t.Errorf("claude-md to stdout: exit %d\n%s", code, out)
	}
}

func TestSnapshotWriteUsage(t *testing.T) {
	c := newCLI(t)
	path := filepath.Join(t.TempDir(), "AGENTS.md")
	for _, args := range [][]string{
		{"snapshot", "--write", path},
		{"snapshot", "--format", "json", "--write", path},
		{"snapshot", "--format", "agents", "--write", path},
	} {
		if code, _, errs := c.run(args...); code != 2 || !strings.Contains(errs, "--") {
			t.Errorf("%v: exit %d %s", args, code, errs)
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a refused invocation wrote the file")
	}
	os.WriteFile(path, []byte("<!-- lexsona:end -->\n"), 0o644)
	if code, _, errs := c.run("snapshot", "--format", "agents-md", "--write", path); code != 2 || !strings.Contains(errs, path) {
		t.Errorf("malformed markers: exit %d %s", code, errs)
	}
}
