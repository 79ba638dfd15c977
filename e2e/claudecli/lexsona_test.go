package claudecli

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// sedRule is the default pack's rule whose enforce check denies `sed -i`
// through Bash; its text is what the persona lists and the deny reason says.
const (
	sedRule     = "tool.no-sed-for-file-editing"
	sedRuleText = "Never use sed, awk or perl one-liners to edit files; use the editor's replace tool instead"
)

// maxActivationRecords bounds makeRuleActive's corrections.
const maxActivationRecords = 20

// makeRuleActive records explicit corrections on rule (`lexsona record
// --rule`, as the user saying CORRECT[rule]: would) until lexsona reports the
// rule active, at most maxActivationRecords of them, and fails the test if it
// never is. It returns how many corrections it took.
func makeRuleActive(t *testing.T, sb *Sandbox, rule string) int {
	t.Helper()
	for n := 1; n <= maxActivationRecords; n++ {
		out := sb.Lexsona(t, "--json", "record", "--rule", rule, "--text", "stop editing files with sed -i, use the edit tool")
		var res struct {
			RuleID string `json:"rule_id"`
			Active bool   `json:"active"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("lexsona --json record: %v\n%s", err, out)
		}
		if res.RuleID != rule {
			t.Fatalf("lexsona record --rule %s recorded on %q", rule, res.RuleID)
		}
		if res.Active {
			return n
		}
	}
	t.Fatalf("%s is not active after %d explicit corrections", rule, maxActivationRecords)
	return 0
}

// installHooks runs `lexsona hooks install claude-code --command` with the
// sandbox's lexsona by its absolute path, in the project folder, and returns
// the absolute path of the settings file it reports it wrote.
func installHooks(t *testing.T, sb *Sandbox) string {
	t.Helper()
	out := sb.Lexsona(t, "--json", "hooks", "install", "claude-code", "--command", sb.HookCommand())
	var res struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Path == "" {
		t.Fatalf("lexsona --json hooks install: no path in %q (%v)", out, err)
	}
	if !filepath.IsAbs(res.Path) {
		res.Path = filepath.Join(sb.Project, res.Path)
	}
	return res.Path
}

// uninstallHooks runs `lexsona hooks uninstall claude-code` in the project
// folder: the hooks installHooks wrote are this binary's, which uninstall
// removes by default.
func uninstallHooks(t *testing.T, sb *Sandbox) {
	t.Helper()
	sb.Lexsona(t, "hooks", "uninstall", "claude-code")
}
