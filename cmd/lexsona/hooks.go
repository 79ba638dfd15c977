package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/hooks"
	"github.com/spf13/cobra"
)

func newHooksCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "hooks", Short: "Install or remove LexSona's hooks in an agent's settings"}
	var dir, command, httpURL, serverAddr string
	var user, shared, noPrepare bool
	install := &cobra.Command{
		Use:   "install claude-code [--dir PROJECT | --user] [--shared] [--command CMD | --http URL | --server ADDR]",
		Short: "Add LexSona's SessionStart, UserPromptSubmit and PreToolUse hooks to Claude Code's settings (other hooks kept)",
		Long: `Writes LexSona's hooks into Claude Code's settings, replacing whatever
LexSona wrote there before, of any kind:
SessionStart and UserPromptSubmit are command hooks (Claude Code runs no HTTP
hook on SessionStart; the prompt hook runs async and spools the prompt, so it
never holds the prompt and never loses it); PreToolUse has a matcher for the
tools the enforced rules check.
With a running service (found at --server, or named by --http) the command
hooks take the persona from it and deliver prompts to it, and PreToolUse is
an HTTP hook to it; else they use this configuration's database, which is
prepared first (registries synced, rule texts embedded) so the first prompt
is classified at once.
A project's hooks go to PROJECT/.claude/settings.local.json, which stays on
this machine: they name this binary by its path and the service by its port.
--shared writes PROJECT/.claude/settings.json instead, for the team, with
only what a teammate can use (lexsona from PATH, no service). --user writes
~/.claude/settings.json.`,
		Args: exactArgs(1, "the agent: claude-code"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "claude-code" {
				return usagef("lexsona hooks install %q: the supported agent is claude-code", args[0])
			}
			path, err := claudeSettingsPath(dir, user, shared, a.cfg.Home)
			if err != nil {
				return err
			}
			var t hookTarget
			switch {
			case httpURL != "" && cmd.Flags().Changed("command"):
				return usagef("give --command or --http, not both")
			case shared && (httpURL != "" || cmd.Flags().Changed("command")):
				return usagef("--shared writes only what a teammate can use: give neither --command nor --http")
			case shared:
				t = hookTarget{command: hooks.DefaultHookCommand, why: "--shared: lexsona from PATH, this machine's database"}
			case httpURL != "":
				base, err := serviceBase(httpURL)
				if err != nil {
					return usagef("--http: %s", engine.ErrorMessage(err))
				}
				t = hookTarget{command: a.hookCommand(), server: base, why: "--http"}
			case cmd.Flags().Changed("command"):
				t = hookTarget{command: command, why: "--command"}
			default:
				t = chooseHookTarget(cmd.Context(), serverAddr, a.hookCommand())
			}
			project := ""
			if !user {
				project = filepath.Dir(filepath.Dir(path))
			}
			spec, warnings, err := a.prepareHooks(cmd, t, project, noPrepare)
			if err != nil {
				return err
			}
			changed, err := hooks.EditSettingsFile(path, func(b []byte) ([]byte, error) { return hooks.InstallClaudeCode(b, spec) })
			if err != nil {
				return err
			}
			removed, err := a.uninstallOthers(path, dir, user)
			if err != nil {
				return err
			}
			for _, w := range append(t.warnings(), warnings...) {
				fmt.Fprintf(a.stderr, "lexsona: warning: %s\n", w)
			}
			res := map[string]any{"path": path, "changed": changed, "http": t.server != "", "command": spec.Command,
				"server": t.server, "matcher": spec.Matcher, "why": t.why, "removed_from": removed}
			return a.output(res, func(w io.Writer) {
				if changed {
					fmt.Fprintf(w, "added LexSona's %s: %s\n(%s)\n", t.describe(), path, t.why)
				} else {
					fmt.Fprintf(w, "%s: nothing to change for %s\n", path, t.describe())
				}
				for _, p := range removed {
					fmt.Fprintf(w, "removed LexSona's earlier hooks from %s\n", p)
				}
			})
		},
	}
	f := install.Flags()
	f.StringVar(&dir, "dir", "", "project folder (default: the current folder)")
	f.BoolVar(&user, "user", false, "edit ~/.claude/settings.json (every project)")
	f.BoolVar(&shared, "shared", false, "write the project's committed .claude/settings.json with only what a teammate can use")
	f.BoolVar(&noPrepare, "no-prepare", false, "do not sync the registries and embed the rule texts first")
	f.StringVar(&command, "command", hooks.DefaultHookCommand, "the hook command (default: this binary by its absolute path, then hook claude-code)")
	f.StringVar(&serverAddr, "server", a.defaultServiceAddr(), "where to look for a running LexSona service when neither --http nor --command is given (env LEXSONA_ADDR)")
	f.StringVar(&httpURL, "http", "", "use the running lexsona serve at this `URL` (e.g. http://127.0.0.1:8080)")

	uninstall := &cobra.Command{
		Use:   "uninstall claude-code [--dir PROJECT | --user]",
		Short: "Remove every hook LexSona wrote, of any kind, from the project's (or the user's) Claude Code settings",
		Args:  exactArgs(1, "the agent: claude-code"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "claude-code" {
				return usagef("lexsona hooks uninstall %q: the supported agent is claude-code", args[0])
			}
			paths, err := settingsPaths(dir, user, a.cfg.Home)
			if err != nil {
				return err
			}
			var changed []string
			for _, p := range paths {
				ok, err := uninstallFrom(p)
				if err != nil {
					return err
				}
				if ok {
					changed = append(changed, p)
				}
			}
			return a.output(map[string]any{"removed_from": changed}, func(w io.Writer) {
				if len(changed) == 0 {
					fmt.Fprintln(w, "no LexSona hooks found")
				}
				for _, p := range changed {
					fmt.Fprintf(w, "removed LexSona's hooks from %s\n", p)
				}
			})
		},
	}
	uninstall.Flags().StringVar(&dir, "dir", "", "project folder (default: the current folder)")
	uninstall.Flags().BoolVar(&user, "user", false, "edit ~/.claude/settings.json")
	c.AddCommand(install, uninstall)
	return c
}

// claudeSettingsPath is where install writes: PROJECT/.claude/settings.local.json,
// PROJECT/.claude/settings.json with shared, or <home>/.claude/settings.json
// with user (a usage error when there is no home folder).
func claudeSettingsPath(dir string, user, shared bool, home string) (string, error) {
	switch {
	case user && dir != "":
		return "", usagef("give --dir or --user, not both")
	case user && shared:
		return "", usagef("give --user or --shared, not both")
	case user:
		if home == "" {
			return "", usagef("--user: no home folder: $HOME is not defined")
		}
		return filepath.Join(home, ".claude", "settings.json"), nil
	}
	if dir == "" {
		dir = "."
	}
	name := "settings.local.json"
	if shared {
		name = "settings.json"
	}
	return filepath.Join(dir, ".claude", name), nil
}

// settingsPaths are the files uninstall cleans: the project's two, or the
// user's.
func settingsPaths(dir string, user bool, home string) ([]string, error) {
	if user {
		p, err := claudeSettingsPath("", true, false, home)
		return []string{p}, err
	}
	if dir == "" {
		dir = "."
	}
	return []string{filepath.Join(dir, ".claude", "settings.json"), filepath.Join(dir, ".claude", "settings.local.json")}, nil
}

// uninstallOthers removes LexSona's hooks from the project's other settings
// file (one kind, one place at a time), returning the files it changed.
func (a *app) uninstallOthers(path, dir string, user bool) ([]string, error) {
	if user {
		return nil, nil
	}
	paths, _ := settingsPaths(dir, false, "")
	var changed []string
	for _, p := range paths {
		if p == path {
			continue
		}
		ok, err := uninstallFrom(p)
		if err != nil {
			return nil, err
		}
		if ok {
			changed = append(changed, p)
		}
	}
	return changed, nil
}

// uninstallFrom removes LexSona's hooks from the settings file at path,
// and the file itself when nothing else is left in it (install created it):
// the settings are as they were before install. It reports whether it
// changed anything.
func uninstallFrom(path string) (bool, error) {
	ok, err := hooks.EditSettingsFile(path, hooks.UninstallClaudeCode)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil || !ok {
		return ok, err
	}
	if data, err := os.ReadFile(path); err == nil && string(data) == "{}\n" {
		return true, os.Remove(path)
	}
	return true, nil
}

// serviceBase is the base URL of a service named by a hook URL or a base
// URL (its route and query dropped). Errors: ValidateHookURL's.
func serviceBase(u string) (string, error) {
	if err := hooks.ValidateHookURL(u); err != nil {
		return "", err
	}
	base, _, _ := strings.Cut(u, "?")
	base = strings.TrimSuffix(strings.TrimRight(base, "/"), hooks.HTTPRoute)
	return strings.TrimRight(base, "/"), nil
}

// serviceNeedsKey reports whether the service at base refuses a request
// without the API key this configuration has (LEXSONA_API_KEY).
func (a *app) serviceNeedsKey(base string) bool {
	req, err := http.NewRequest(http.MethodGet, base+"/v1/persona", nil)
	if err != nil {
		return false
	}
	if a.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+a.cfg.APIKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden
}
