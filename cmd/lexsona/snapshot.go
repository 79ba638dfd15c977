package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/lexsona/lexsona/agentfile"
	"github.com/lexsona/lexsona/memory"
	"github.com/spf13/cobra"
)

func newSnapshotCmd(a *app) *cobra.Command {
	var now, format, write string
	var max int
	var includeDormant, trace bool
	var sf scopeFlags
	c := &cobra.Command{
		Use:   "snapshot [scope flags] [--now T] [--max N] [--format json|prompt|agents-md|claude-md|cursor-rule] [--write FILE]",
		Short: "Print the persona snapshot of a context: its active rules and the prompt block",
		Long: `Prints the persona snapshot of a context: its active rules and the prompt block.

With --format agents-md or claude-md the prompt block is wrapped in the managed
block LexSona owns in AGENTS.md or CLAUDE.md (between <!-- lexsona:begin -->
and <!-- lexsona:end -->); with --format cursor-rule it is a whole Cursor rule
(.cursor/rules/lexsona.mdc, alwaysApply: true). --write FILE puts it into FILE:
the managed block is replaced (or appended when the file has no markers, the
file created when absent) and every other byte is kept; a Cursor rule replaces
the file. A file that already holds this persona is not touched.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			at, err := parseTime("now", now)
			if err != nil {
				return err
			}
			if max < 0 || max > memory.MaxSnapshotRules {
				return usagef("--max %d: want 1 to %d (0 for the configured default)", max, memory.MaxSnapshotRules)
			}
			agentFile := agentfile.ValidFormat(format)
			switch {
			case agentFile, format == "", format == "json", format == "prompt", format == "text":
			default:
				return usagef("--format %q: want json, prompt, text, agents-md, claude-md or cursor-rule", format)
			}
			if write != "" && !agentFile {
				return usagef("--write wants --format agents-md, claude-md or cursor-rule")
			}
			scope, err := sf.scope()
			if err != nil {
				return err
			}
			mem, err := a.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			snap, err := mem.Persona(cmd.Context(), memory.PersonaRequest{
				Scope: scope, Now: at, Max: max, IncludeDormant: includeDormant, Trace: trace,
			})
			if err != nil {
				return err
			}
			if write != "" {
				res, err := agentfile.WriteAgentFile(write, format, snap.Prompt)
				if err != nil {
					return err
				}
				return a.output(res, func(w io.Writer) {
					switch {
					case res.Created:
						fmt.Fprintf(w, "created %s (%s)\n", res.Path, rules(len(snap.Rules)))
					case res.Changed:
						fmt.Fprintf(w, "updated %s (%s)\n", res.Path, rules(len(snap.Rules)))
					default:
						fmt.Fprintf(w, "%s already holds this persona; left untouched\n", res.Path)
					}
				})
			}
			if agentFile {
				out, err := agentfile.Render(format, snap.Prompt)
				if err != nil {
					return err
				}
				_, err = io.WriteString(a.stdout, strings.TrimSuffix(out, "\n")+"\n")
				return err
			}
			if format == "prompt" {
				_, err := io.WriteString(a.stdout, snap.Prompt)
				return err
			}
			if format == "json" {
				return a.printJSON(snap)
			}
			return a.output(snap, func(w io.Writer) {
				io.WriteString(w, snap.Prompt)
				noun := "rules"
				if len(snap.Rules) == 1 {
					noun = "rule"
				}
				fmt.Fprintf(w, "\n%d %s, about %d tokens", len(snap.Rules), noun, snap.EstimatedTokens)
				if snap.Truncated > 0 {
					fmt.Fprintf(w, ", %d cut by --max", snap.Truncated)
				}
				fmt.Fprintln(w)
				for _, l := range snap.Losers {
					fmt.Fprintf(w, "  %s lost to %s on %s (%s vs %s)\n", l.RuleID, l.LostTo, l.Criterion, l.LoserValue, l.WinnerValue)
				}
			})
		},
	}
	f := c.Flags()
	f.StringVar(&now, "now", "", "evaluate at this time (RFC 3339)")
	f.IntVar(&max, "max", 0, "at most this many rules (default: config max_rules, 20)")
	f.BoolVar(&includeDormant, "include-dormant", false, "also consider stale-weak and dormant rules")
	f.BoolVar(&trace, "trace", false, "include every rule's decision (why it was or was not injected)")
	f.StringVar(&format, "format", "", "json, prompt (only the prompt block), or an agent file: agents-md, claude-md, cursor-rule")
	f.StringVar(&write, "write", "", "write the persona into this agent file (AGENTS.md, CLAUDE.md, .cursor/rules/lexsona.mdc); needs an agent --format")
	sf.register(f, false)
	sf.registerDetect(f)
	return c
}

// rules says how many rules: "1 rule", "3 rules".
func rules(n int) string {
	if n == 1 {
		return "1 rule"
	}
	return fmt.Sprintf("%d rules", n)
}
