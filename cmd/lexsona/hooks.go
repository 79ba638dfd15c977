package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/hooks"
	"github.com/spf13/cobra"
)

func newHooksCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "hooks", Short: "Install or remove LexSona's hooks in an agent's settings"}
	var dir, command, httpURL, serverAddr string
	var user bool
	mk := func(use, short string, edit, editHTTP func([]byte, string) ([]byte, error), verb string) *cobra.Command {
		s := &cobra.Command{
			Use:   use + " claude-code [--dir PROJECT | --user] [--command CMD | --http URL | --server ADDR]",
			Short: short,
			Args:  exactArgs(1, "the agent: claude-code"),
			RunE: func(cmd *cobra.Command, args []string) error {
				if args[0] != "claude-code" {
					return usagef("lexsona hooks %s %q: the supported agent is claude-code", use, args[0])
				}
				path, err := claudeSettingsPath(dir, user, a.cfg.Home)
				if err != nil {
					return err
				}
				var t hookTarget
				switch {
				case httpURL != "" && cmd.Flags().Changed("command"):
					return usagef("give --command or --http, not both")
				case httpURL != "":
					if err := hooks.ValidateHookURL(httpURL); err != nil {
						return usagef("--http: %s", engine.ErrorMessage(err))
					}
					t = hookTarget{http: true, target: httpURL, why: "--http"}
				case cmd.Flags().Changed("command"):
					t = hookTarget{target: command, why: "--command"}
				default:
					project := ""
					if !user {
						project = filepath.Dir(filepath.Dir(path))
					}
					t = chooseHookTarget(cmd.Context(), serverAddr, project)
				}
				ed := edit
				if t.http {
					ed = editHTTP
				}
				changed, err := hooks.EditSettingsFile(path, t.target, ed)
				if err != nil {
					return err
				}
				if t.warning != "" {
					fmt.Fprintf(a.stderr, "lexsona: warning: %s\n", t.warning)
				}
				res := map[string]any{"path": path, "changed": changed, "http": t.http, "target": t.target, "why": t.why}
				return a.output(res, func(w io.Writer) {
					if changed {
						fmt.Fprintf(w, "%s LexSona's %s: %s\n(%s)\n", verb, t.describe(), path, t.why)
					} else {
						fmt.Fprintf(w, "%s: nothing to change for %s\n", path, t.describe())
					}
				})
			},
		}
		f := s.Flags()
		f.StringVar(&dir, "dir", "", "project folder: edit PROJECT/.claude/settings.json (default: the current folder)")
		f.BoolVar(&user, "user", false, "edit ~/.claude/settings.json (every project)")
		f.StringVar(&command, "command", hooks.DefaultHookCommand, "command hooks running this command (default: HTTP hooks when a service answers at --server, else command hooks running this binary by its absolute path)")
		f.StringVar(&serverAddr, "server", a.defaultServiceAddr(), "where to look for a running LexSona service when neither --http nor --command is given (env LEXSONA_ADDR)")
		f.StringVar(&httpURL, "http", "", "HTTP hooks instead of command hooks: the `URL` of a running lexsona serve's hook route, e.g. http://127.0.0.1:8080"+hooks.HTTPRoute+
			" (the hook sends Authorization: Bearer $"+hooks.HTTPKeyEnv+")")
		return s
	}
	c.AddCommand(
		mk("install", "Add LexSona's SessionStart, UserPromptSubmit and PreToolUse hooks to Claude Code's settings (other hooks kept)", hooks.InstallClaudeCode, hooks.InstallClaudeCodeHTTP, "added"),
		mk("uninstall", "Remove exactly the hooks `lexsona hooks install` added", hooks.UninstallClaudeCode, hooks.UninstallClaudeCodeHTTP, "removed"),
	)
	return c
}

// claudeSettingsPath is PROJECT/.claude/settings.json, or with --user
// <home>/.claude/settings.json, home being the configuration's home folder
// (a usage error when there is none).
func claudeSettingsPath(dir string, user bool, home string) (string, error) {
	if user && dir != "" {
		return "", usagef("give --dir or --user, not both")
	}
	if user {
		if home == "" {
			return "", usagef("--user: no home folder: $HOME is not defined")
		}
		return filepath.Join(home, ".claude", "settings.json"), nil
	}
	if dir == "" {
		dir = "."
	}
	return filepath.Join(dir, ".claude", "settings.json"), nil
}
