package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/lexsona/lexsona/engine"
)

const testHookURL = "http://127.0.0.1:8080/v1/hooks/claude-code"

func TestInstallUninstallHTTPRoundTrip(t *testing.T) {
	orig := mustRead(t, "testdata/settings/other.json.in")
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, orig, 0o600)
	edit := func(url string, f func([]byte, string) ([]byte, error)) bool {
		t.Helper()
		changed, err := EditSettingsFile(path, url, f)
		if err != nil {
			t.Fatalf("edit: %v", err)
		}
		return changed
	}
	if !edit(testHookURL, InstallClaudeCodeHTTP) {
		t.Fatal("install changed nothing")
	}
	golden(t, "settings/other.http.installed.golden", mustRead(t, path))
	if edit(testHookURL, InstallClaudeCodeHTTP) {
		t.Error("second install changed the file")
	}
	if edit("http://127.0.0.1:9999/v1/hooks/claude-code", UninstallClaudeCodeHTTP) {
		t.Error("uninstalling another URL changed the file")
	}
	if edit(testHookURL, UninstallClaudeCode) {
		t.Error("uninstalling command hooks removed the HTTP hooks")
	}
	// Command hooks next to HTTP ones; removing the HTTP ones leaves exactly
	// what a command-only install writes.
	edit(DefaultHookCommand, InstallClaudeCode)
	if !edit(testHookURL, UninstallClaudeCodeHTTP) {
		t.Fatal("uninstall changed nothing")
	}
	golden(t, "settings/other.installed.golden", mustRead(t, path))
	edit(DefaultHookCommand, UninstallClaudeCode)
	var a, b any
	json.Unmarshal(orig, &a)
	json.Unmarshal(mustRead(t, path), &b)
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("uninstall did not restore the settings:\n%s", d)
	}

	fresh := filepath.Join(t.TempDir(), "settings.json")
	EditSettingsFile(fresh, testHookURL, InstallClaudeCodeHTTP)
	golden(t, "settings/fresh.http.installed.golden", mustRead(t, fresh))
	EditSettingsFile(fresh, testHookURL, UninstallClaudeCodeHTTP)
	if got := string(mustRead(t, fresh)); got != "{}\n" {
		t.Errorf("fresh after uninstall: %q", got)
	}
}

func TestInstallHTTPRefusesBadURL(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:8080/v1/hooks/claude-code", "ftp://host/x", "http:///x", "lexsona hook claude-code"} {
		if _, err := InstallClaudeCodeHTTP(nil, u); engine.ErrorCode(err) != engine.EINVALID {
			t.Errorf("%q: %v, want EINVALID", u, err)
		}
	}
}

// TestHTTPHooksFailOpen: every installed HTTP hook is one Claude Code gives
// up on without blocking (a short timeout, no onFailure), on the three
// events LexSona answers.
func TestHTTPHooksFailOpen(t *testing.T) {
	data, err := InstallClaudeCodeHTTP(nil, testHookURL)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string           `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Hooks) != 3 {
		t.Errorf("events %v, want SessionStart, UserPromptSubmit, PreToolUse", s.Hooks)
	}
	for event, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if h["type"] != "http" || h["url"] != testHookURL {
					t.Errorf("%s: hook %v", event, h)
				}
				if to, _ := h["timeout"].(float64); to < 1 || to > httpHookTimeout {
					t.Errorf("%s: timeout %v, want 1 to %d seconds", event, h["timeout"], httpHookTimeout)
				}
				if _, ok := h["onFailure"]; ok {
					t.Errorf("%s: onFailure set: a failure would block the agent", event)
				}
			}
		}
	}
}

// TestInstallReplacesOurOlderTimeout: a group of ours with another timeout
// (an older install, or a user's edit) is updated where it stands by
// install and removed by uninstall.
func TestInstallReplacesOurOlderTimeout(t *testing.T) {
	current, err := InstallClaudeCodeHTTP(nil, testHookURL)
	if err != nil {
		t.Fatal(err)
	}
	older := []byte(strings.ReplaceAll(string(current), `"timeout": 5`, `"timeout": 10`))
	if bytes.Equal(older, current) {
		t.Fatal("no timeout to change")
	}
	again, err := InstallClaudeCodeHTTP(older, testHookURL)
	if err != nil || !bytes.Equal(again, current) {
		t.Errorf("install over an older timeout:\n%s\nwant\n%s (%v)", again, current, err)
	}
	gone, err := UninstallClaudeCodeHTTP(older, testHookURL)
	if err != nil || string(gone) != "{}\n" {
		t.Errorf("uninstall of an older timeout: %q %v", gone, err)
	}
}
