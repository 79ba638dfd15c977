package main

import (
	"fmt"
	"io"

	"github.com/lexsona/lexsona/engine"
	"github.com/spf13/cobra"
)

func newSnapshotCmd(a *app) *cobra.Command {
	var now, format string
	var max int
	var includeDormant, trace bool
	var sf scopeFlags
	c := &cobra.Command{
		Use:   "snapshot [scope flags] [--now T] [--max N] [--format json|prompt]",
		Short: "Print the persona snapshot of a context: its active rules and the prompt block",
		RunE: func(cmd *cobra.Command, _ []string) error {
			at, err := parseTime("now", now)
			if err != nil {
				return err
			}
			if max < 0 || max > 10000 {
				return usagef("--max %d: want 1 to 10000 (0 for the configured default)", max)
			}
			switch format {
			case "", "json", "prompt", "text":
			default:
				return usagef("--format %q: want json, prompt or text", format)
			}
			scope, err := sf.scope()
			if err != nil {
				return err
			}
			db, err := a.openDB(cmd.Context())
			if err != nil {
				return err
			}
			snap, err := db.Snapshot(cmd.Context(), engine.SnapshotRequest{
				Scope: scope, Now: at, Max: max, IncludeDormant: includeDormant, Trace: trace,
			})
			if err != nil {
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
				fmt.Fprintf(w, "\n%d rules, about %d tokens", len(snap.Rules), snap.EstimatedTokens)
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
	f.StringVar(&format, "format", "", "json or prompt (only the prompt block)")
	sf.register(f, false)
	return c
}
