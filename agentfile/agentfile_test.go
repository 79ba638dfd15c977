package agentfile

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func golden(t *testing.T, name string, got []byte) { t.Helper(); testenv.Golden(t, name, got, *update) }

func mustRead(t *testing.T, path string) []byte { t.Helper(); return testenv.MustRead(t, path) }

func testPrompt(t *testing.T) string {
	return string(mustRead(t, "testdata/agentfile/prompt.txt"))
}

func TestWriteAgentFileGolden(t *testing.T) {
	for _, tc := range []struct {
		name, in, format, file string
	}{
		{"absent file is created", "", FormatAgentsMD, "AGENTS.md"},
		{"empty file", "empty.md.in", FormatClaudeMD, "CLAUDE.md"},
		{"block between other content", "around.md.in", FormatAgentsMD, "AGENTS.md"},
		{"CRLF line endings", "crlf.md.in", FormatClaudeMD, "CLAUDE.md"},
		{"no markers: block appended", "append.md.in", FormatAgentsMD, "AGENTS.md"},
		{"cursor rule", "", FormatCursorRule, ".cursor/rules/lexsona.mdc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			if tc.in != "" {
				if err := os.WriteFile(path, mustRead(t, "testdata/agentfile/"+tc.in), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res, err := WriteAgentFile(path, tc.format, testPrompt(t))
			if err != nil {
				t.Fatal(err)
			}
			if !res.Changed || res.Created != (tc.in == "") {
				t.Errorf("result %+v", res)
			}
			goldenName := strings.TrimSuffix(tc.in, ".in")
			if tc.in == "" {
				goldenName = tc.format + "-new"
			}
			golden(t, "agentfile/"+goldenName+".golden", mustRead(t, path))
		})
	}
}

// TestWriteAgentFileKeepsOutsideBytes checks byte for byte that what lies
// before and after the markers is the input's.
func TestWriteAgentFileKeepsOutsideBytes(t *testing.T) {
	for _, in := range []string{"around.md.in", "crlf.md.in"} {
		old := string(mustRead(t, "testdata/agentfile/"+in))
		path := filepath.Join(t.TempDir(), "AGENTS.md")
		os.WriteFile(path, []byte(old), 0o644)
		if _, err := WriteAgentFile(path, FormatAgentsMD, testPrompt(t)); err != nil {
			t.Fatal(err)
		}
		got := string(mustRead(t, path))
		before := old[:strings.Index(old, BeginMarker)]
		after := old[strings.Index(old, EndMarker)+len(EndMarker):]
		if !strings.HasPrefix(got, before) || !strings.HasSuffix(got, after) {
			t.Errorf("%s: outside bytes changed:\n%q", in, got)
		}
		if strings.Contains(in, "crlf") && strings.Count(got, "\n") != strings.Count(got, "\r\n") {
			t.Errorf("%s: a bare LF in a CRLF file:\n%q", in, got)
		}
	}
}

func TestWriteAgentFileIdempotent(t *testing.T) {
	for _, format := range Formats() {
		t.Run(format, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.md")
			os.WriteFile(path, mustRead(t, "testdata/agentfile/around.md.in"), 0o600)
			if _, err := WriteAgentFile(path, format, testPrompt(t)); err != nil {
				t.Fatal(err)
			}
			past := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
			if err := os.Chtimes(path, past, past); err != nil {
				t.Fatal(err)
			}
			first := mustRead(t, path)
			res, err := WriteAgentFile(path, format, testPrompt(t))
			if err != nil {
				t.Fatal(err)
			}
			st, _ := os.Stat(path)
			if res.Changed || !st.ModTime().Equal(past) {
				t.Errorf("second write: changed %v, mtime %v, want untouched %v", res.Changed, st.ModTime(), past)
			}
			if d := cmp.Diff(first, mustRead(t, path)); d != "" {
				t.Errorf("second write changed the bytes:\n%s", d)
			}
			if st.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want the original 0600 kept", st.Mode().Perm())
			}
			// A changed persona rewrites it, keeping the mode.
			res, err = WriteAgentFile(path, format, testPrompt(t)+"- [x] another rule\n")
			if err != nil || !res.Changed {
				t.Fatalf("changed persona: %+v %v", res, err)
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 || st.ModTime().Equal(past) {
				t.Errorf("after a change: mode %v mtime %v", st.Mode().Perm(), st.ModTime())
			}
		})
	}
}

func TestWriteAgentFileRefusesMalformedMarkers(t *testing.T) {
	for name, content := range map[string]string{
		"end only":       "a\n" + EndMarker + "\n",
		"begin only":     "a\n" + BeginMarker + "\nb\n",
		"end before":     EndMarker + "\n" + BeginMarker + "\n",
		"two blocks":     BeginMarker + "\n" + EndMarker + "\n" + BeginMarker + "\n" + EndMarker + "\n",
		"path is folder": "",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "AGENTS.md")
			if content == "" {
				os.Mkdir(path, 0o755)
			} else {
				os.WriteFile(path, []byte(content), 0o644)
			}
			_, err := WriteAgentFile(path, FormatAgentsMD, testPrompt(t))
			if engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(engine.ErrorMessage(err), path) {
				t.Fatalf("err %v, want EINVALID naming %s", err, path)
			}
			if content != "" && string(mustRead(t, path)) != content {
				t.Error("the file was changed")
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("left files behind: %v", entries)
			}
		})
	}
}

func TestRenderUnknownFormat(t *testing.T) {
	if _, err := Render("json", "x"); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("err %v", err)
	}
}
