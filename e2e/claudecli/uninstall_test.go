package claudecli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// userSettings are a project's .claude/settings.json before LexSona: a
// permission and a SessionStart hook of the user's own that appends a line to
// user-hook.log, in two layouts: as Claude Code writes JSON (two-space
// indent) and as a person might (tabs, a compact group).
var userSettings = []struct{ name, json string }{
	{"two-space", `{
  "permissions": {
    "allow": [
      "Bash(npm test)"
    ]
  },
  "hooks": {
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "echo user-hook-ran >> \"$CLAUDE_PROJECT_DIR/user-hook.log\""
          }
        ]
      }
    ]
  }
}
`},
	{"tabs", "{\n\t\"hooks\": {\n\t\t\"SessionStart\": [\n\t\t\t{\"hooks\": [{\"type\": \"command\", \"command\": \"echo user-hook-ran >> \\\"$CLAUDE_PROJECT_DIR/user-hook.log\\\"\"}]}\n\t\t]\n\t},\n\t\"permissions\": {\"allow\": [\"Bash(npm test)\"]}\n}\n"},
}

// claudeFiles is every file under the project's .claude folder, by path
// relative to the project, with its bytes.
func claudeFiles(t *testing.T, sb *Sandbox) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := filepath.Join(sb.Project, ".claude")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(sb.Project, path)
		out[rel] = string(b)
		return err
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

// diffFiles says how the files of after differ from before, one line each;
// "" when they are the same.
func diffFiles(before, after map[string]string) string {
	var out []string
	for name, b := range before {
		a, ok := after[name]
		switch {
		case !ok:
			out = append(out, name+" is gone")
		case a != b:
			out = append(out, fmt.Sprintf("%s is\n%s\nwas\n%s", name, a, b))
		}
	}
	for name, a := range after {
		if _, ok := before[name]; !ok {
			out = append(out, fmt.Sprintf("%s is new:\n%s", name, a))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestUninstallRestoresSettings: `lexsona hooks install` then `lexsona hooks
// uninstall` leave the project's .claude folder byte for byte as it was (the
// user's settings.json with its own hook, and no file that was not there);
// in between, a Claude Code session runs both the user's hook and LexSona's
// and changes none of the settings files.
func TestUninstallRestoresSettings(t *testing.T) {
	for _, tc := range userSettings {
		t.Run(tc.name, func(t *testing.T) {
			sb := NewSandbox(t)
			makeRuleActive(t, sb, sedRule)
			sb.WriteFile(t, ".claude/settings.json", tc.json)
			before := claudeFiles(t, sb)

			path := installHooks(t, sb)
			installed := claudeFiles(t, sb)
			if rel, _ := filepath.Rel(sb.Project, path); !strings.Contains(installed[rel], sb.HookCommand()) {
				t.Fatalf("install reported %s, which lacks LexSona's hook command; .claude holds %v", path, installed)
			}

			s := NewStandIn(t, Turn{Text: "Noted."})
			sess := sb.Claude(t, s, "What should I keep in mind in this project?")
			if sess.Err != nil || len(sess.Main) == 0 {
				t.Fatalf("claude -p: %v, %d requests\nstderr: %s", sess.Err, len(sess.Main), sess.Stderr)
			}
			if got := sb.ReadFile(t, "user-hook.log"); got != "user-hook-ran\n" {
				t.Errorf("the user's SessionStart hook wrote %q, want it run once", got)
			}
			if first := sess.Main[0].Msg; !strings.Contains(first.MessagesText(), sedRuleText) {
				t.Errorf("LexSona's SessionStart hook beside the user's: the persona is not in the first request")
			}
			if d := diffFiles(installed, claudeFiles(t, sb)); d != "" {
				t.Errorf("the session changed the settings:\n%s", d)
			}

			uninstallHooks(t, sb)
			if d := diffFiles(before, claudeFiles(t, sb)); d != "" {
				t.Errorf("after uninstall the .claude folder is not as before install:\n%s", d)
			}
		})
	}
}
