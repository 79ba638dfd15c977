package hooks

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

const testBase = "http://127.0.0.1:8080"

// settingsHooks decodes the hooks of settings: event → its groups.
func settingsHooks(t *testing.T, settings []byte) map[string][]hookGroup {
	t.Helper()
	var root struct {
		Hooks map[string][]hookGroup `json:"hooks"`
	}
	if err := json.Unmarshal(settings, &root); err != nil {
		t.Fatal(err)
	}
	return root.Hooks
}

// TestInstallKinds: SessionStart and UserPromptSubmit are command hooks in
// both kinds (neither async); PreToolUse has the matcher, and is an HTTP
// hook with a service.
func TestInstallKinds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		spec     Install
		wantTool string
	}{
		{"command", Install{Command: DefaultHookCommand, Matcher: "Bash"}, "command"},
		{"service", Install{Command: DefaultHookCommand, Server: testBase, PreToolURL: testBase + HTTPRoute + "?project=web", Matcher: "Bash|Write"}, "http"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := InstallClaudeCode(nil, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			hs := settingsHooks(t, data)
			start, prompt, tool := hs[EventSessionStart][0].Hooks[0], hs[EventUserPromptSubmit][0].Hooks[0], hs[EventPreToolUse][0]
			if start.Type != "command" || prompt.Type != "command" || prompt.Async || start.Async {
				t.Errorf("session start %+v, prompt %+v", start, prompt)
			}
			if tc.spec.Server != "" && !strings.HasSuffix(start.Command, "--server "+testBase) {
				t.Errorf("session start command %q does not name the service", start.Command)
			}
			if tool.Matcher != tc.spec.Matcher || tool.Hooks[0].Type != tc.wantTool {
				t.Errorf("PreToolUse %+v", tool)
			}
		})
	}
	if data, _ := InstallClaudeCode(nil, Install{Command: DefaultHookCommand}); settingsHooks(t, data)[EventPreToolUse] != nil {
		t.Error("a PreToolUse hook without a matcher (no rule is enforced)")
	}
}

// TestInstallOneKindAtATime: installing one kind over the other (or over
// an older version of LexSona's groups) leaves only the new one, the user's
// own hooks kept; uninstall removes every group of ours.
func TestInstallOneKindAtATime(t *testing.T) {
	user := []byte(`{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"./my-hook.sh"}]}]}}`)
	older := []byte(`{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"./my-hook.sh"}]},` +
		`{"hooks":[{"type":"http","url":"http://127.0.0.1:9999/v1/hooks/claude-code?project=x","timeout":5}]},` +
		`{"hooks":[{"type":"command","command":"/old/lexsona hook claude-code","timeout":10}]}]}}`)
	svc := Install{Command: "/bin/lexsona hook claude-code", Server: testBase, PreToolURL: testBase + HTTPRoute, Matcher: "Bash"}
	for name, start := range map[string][]byte{"user's hooks": user, "older kinds": older} {
		t.Run(name, func(t *testing.T) {
			data, err := InstallClaudeCode(start, Install{Command: DefaultHookCommand, Matcher: "Bash"})
			if err != nil {
				t.Fatal(err)
			}
			if data, err = InstallClaudeCode(data, svc); err != nil {
				t.Fatal(err)
			}
			groups := settingsHooks(t, data)[EventUserPromptSubmit]
			if len(groups) != 2 || groups[0].Hooks[0].Command != "./my-hook.sh" || !strings.Contains(groups[1].Hooks[0].Command, "--server") {
				t.Errorf("UserPromptSubmit groups %+v", groups)
			}
			out, err := UninstallClaudeCode(data)
			if err != nil {
				t.Fatal(err)
			}
			if got := settingsHooks(t, out); len(got) != 1 || len(got[EventUserPromptSubmit]) != 1 {
				t.Errorf("after uninstall: %+v", got)
			}
		})
	}
}

func TestInstallRefusesBadInput(t *testing.T) {
	for _, spec := range []Install{{}, {Command: DefaultHookCommand, PreToolURL: "ftp://x", Matcher: "Bash"}} {
		if _, err := InstallClaudeCode(nil, spec); engine.ErrorCode(err) != engine.EINVALID {
			t.Errorf("%+v: %v", spec, err)
		}
	}
	if _, err := InstallClaudeCode([]byte(`{"hooks": []}`), Install{Command: DefaultHookCommand}); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("malformed hooks: %v", err)
	}
}
