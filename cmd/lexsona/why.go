package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lexsona/lexsona/engine"
)

func newWhyCmd(a *app) *cobra.Command {
	var now string
	var sf scopeFlags
	c := &cobra.Command{
		Use:   "why [ID | scope flags]",
		Short: "Explain a rule (its state and whole history) or a context (which rules apply and why)",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("why takes at most one rule id")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			at, err := parseTime("now", now)
			if err != nil {
				return err
			}
			mem, err := a.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			if len(args) == 0 {
				scope, err := sf.scope()
				if err != nil {
					return err
				}
				out, err := mem.Why(cmd.Context(), scope, at)
				if err != nil {
					return err
				}
				return a.output(out, func(w io.Writer) {
					fmt.Fprintf(w, "scope %s\n", out.Scope)
					for _, d := range out.Decisions {
						more := ""
						if n := engine.NeededText(d.Needed); d.Needed != 0 && !strings.Contains(d.Reason, n) {
							more = " (" + n + ")"
						}
						fmt.Fprintf(w, "  %-40s %-14s %s%s\n", d.RuleID, d.Outcome, d.Reason, more)
					}
				})
			}
			out, err := mem.ExplainRule(cmd.Context(), args[0], at, -1)
			if err != nil {
				return err
			}
			cfg, err := mem.Config(cmd.Context())
			if err != nil {
				return err
			}
			return a.output(out, func(w io.Writer) {
				v, t := out.Rule, cfg.For(out.Rule.Category)
				fmt.Fprintf(w, "%s [%s] %s\n  scope %s\n  confidence %.4f (alpha %g, beta %g, n %d; active needs n >= %d and confidence >= %.2f)\n",
					v.RuleID, v.State, v.Text, v.Scope, v.Confidence, v.Alpha, v.Beta, v.Evidence, t.NMin, t.CMin)
				for _, e := range out.History {
					fmt.Fprintf(w, "  %s  #%d %-15s alpha %g beta %g  %s\n", e.At.Format(time.RFC3339), e.EventID, e.EventType, e.Alpha, e.Beta, oneLine(e.UserText, e.AgentOutput, e.Detail))
				}
			})
		},
	}
	c.Flags().StringVar(&now, "now", "", "evaluate at this time (RFC 3339)")
	sf.register(c.Flags(), false)
	return c
}

func oneLine(texts ...string) string {
	for _, t := range texts {
		if t != "" {
			if r := []rune(t); len(r) > 80 {
				t = string(r[:77]) + "..."
			}
			return fmt.Sprintf("%q", t)
		}
	}
	return ""
}
