package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/lexsona/lexsona/registry"
	"github.com/spf13/cobra"
)

func newRegistryCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "registry", Short: "The YAML rule registry and its embedding precompute job"}
	sync := &cobra.Command{
		Use:   "sync [--registry FILE]",
		Short: "Upsert the registry's rules and embed every text not embedded yet for the current model",
		Long: `Upserts the registry's rule definitions into the store in one transaction
(a definition change never resets evidence; a rule removed from the file is
archived, not deleted), then embeds every template and example that has no
vector for the current model yet, in batches. Interrupted, it resumes where it
stopped. Without --registry it syncs the registry last synced, or the default
rule pack.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			core, err := a.openCore(cmd.Context())
			if err != nil {
				return err
			}
			return a.output(core.Sync, func(w io.Writer) {
				s := core.Sync
				fmt.Fprintf(w, "%s: %d rules (%d added, %d updated, %d archived, %d left to your own rules of the same id); %d texts embedded, %d already embedded; %s %s\n",
					core.Registry.Name(), core.Registry.Len(), s.Added, s.Updated, s.Archived, s.Kept, s.Embedded, s.Skipped, s.Embedder, s.Model)
			})
		},
	}
	show := &cobra.Command{
		Use:   "default",
		Short: "Print the default rule pack (YAML), a starting point for your own registry",
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := a.stdout.Write(registry.DefaultYAML())
			return err
		},
	}
	c.AddCommand(sync, show)
	return c
}

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
