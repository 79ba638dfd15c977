package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

func newClassifyCmd(a *app) *cobra.Command {
	var sf scopeFlags
	c := &cobra.Command{
		Use:   "classify TEXT",
		Short: "Map a correction to a rule: auto_match, confirm, new_rule or explicit (CORRECT[rule_id]: …)",
		Args:  minArgs(1, "the correction text (words are joined with spaces)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := sf.scope()
			if err != nil {
				return err
			}
			core, err := a.openCore(cmd.Context())
			if err != nil {
				return err
			}
			res, err := core.Memory.Classify(cmd.Context(), strings.Join(args, " "), scope)
			if err != nil {
				return err
			}
			return a.output(res, func(w io.Writer) {
				rule := res.RuleID
				if rule == "" {
					rule = "(no rule to propose)"
				}
				fmt.Fprintf(w, "%s %s (score %.4f; auto ≥ %.2f, confirm ≥ %.2f; %s %s)\n",
					res.Decision, rule, res.Score, res.Thresholds.Auto, res.Thresholds.Confirm, res.Embedder, res.Model)
				if res.Reason != "" {
					fmt.Fprintf(w, "  reason: %s\n", res.Reason)
				}
				for _, c := range res.Candidates {
					fmt.Fprintf(w, "  %.4f  %s\n", c.Score, c.RuleID)
				}
			})
		},
	}
	sf.register(c.Flags(), false)
	return c
}
