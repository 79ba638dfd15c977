package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/spf13/cobra"
)

func newRulesEditCmd(a *app) *cobra.Command {
	var text, category, severity, topic, status, rename, mergeInto, at string
	var sf scopeFlags
	c := &cobra.Command{
		Use:   "edit ID [--text T] [--category C] [--severity S] [scope flags] [--topic K] [--status S] [--rename NEW | --merge-into OTHER]",
		Short: "Change a rule's definition, rename it, or merge a candidate into another rule",
		Long: `Change a rule's definition fields. Evidence (alpha, beta, counts) is never
reset. Scope flags replace the whole scope. --rename moves the rule and its
history to a new id; --merge-into moves a candidate's events and evidence into
an existing rule and removes the candidate.`,
		Args: exactArgs(1, "one rule id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			fl := cmd.Flags()
			now, err := parseTime("at", at)
			if err != nil {
				return err
			}
			if mergeInto != "" {
				if fl.NFlag() > 0 && (fl.Changed("text") || fl.Changed("rename") || fl.Changed("status")) {
					return usagef("--merge-into cannot be combined with other changes")
				}
				mem, err := a.openMemory(cmd.Context())
				if err != nil {
					return err
				}
				v, err := mem.MergeRule(cmd.Context(), args[0], mergeInto, now)
				if err != nil {
					return err
				}
				return a.printView(v)
			}
			var p memory.RulePatch
			for _, f := range []struct {
				name string
				dst  **string
				v    *string
			}{{"text", &p.Text, &text}, {"category", &p.Category, &category}, {"topic", &p.Topic, &topic},
				{"severity", &p.Severity, &severity}, {"status", &p.Status, &status}, {"rename", &p.RenameTo, &rename}} {
				if fl.Changed(f.name) {
					*f.dst = f.v
				}
			}
			if fl.Changed("env") || fl.Changed("project") || fl.Changed("agent") || fl.Changed("tag") || fl.Changed("exclude-tag") {
				s, err := sf.scope()
				if err != nil {
					return err
				}
				p.Scope = &s
			}
			if p == (memory.RulePatch{}) {
				return usagef("rules edit: nothing to change; give at least one of --text, --category, --severity, scope flags, --topic, --status, --rename, --merge-into")
			}
			mem, err := a.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			v, err := mem.EditRule(cmd.Context(), args[0], p, now)
			if err != nil {
				return err
			}
			return a.printView(v)
		},
	}
	f := c.Flags()
	f.StringVar(&text, "text", "", "new text")
	f.StringVar(&category, "category", "", "new category")
	f.StringVar(&severity, "severity", "", "new severity: must, should or style")
	f.StringVar(&topic, "topic", "", "new topic (empty: none)")
	f.StringVar(&status, "status", "", "new status: active-eligible, candidate or archived")
	f.StringVar(&rename, "rename", "", "new rule id")
	f.StringVar(&mergeInto, "merge-into", "", "merge this (candidate) rule into that rule")
	f.StringVar(&at, "at", "", "time of the change (RFC 3339)")
	sf.register(f, true)
	return c
}

// ruleActionCmd builds a `rules VERB ID [--at T]` command: act changes the
// rule at now, and the rule is printed as it is afterwards.
func ruleActionCmd(a *app, verb, short string, act func(mem *memory.Service, ctx context.Context, id string, at time.Time) (engine.RuleView, error)) *cobra.Command {
	var at string
	c := &cobra.Command{
		Use:   verb + " ID",
		Short: short,
		Args:  exactArgs(1, "one rule id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			now, err := parseTime("at", at)
			if err != nil {
				return err
			}
			mem, err := a.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			v, err := act(mem, cmd.Context(), args[0], now)
			if err != nil {
				return err
			}
			return a.printView(v)
		},
	}
	c.Flags().StringVar(&at, "at", "", "time of the change (RFC 3339)")
	return c
}

func newRulesArchiveCmd(a *app) *cobra.Command {
	return ruleActionCmd(a, "archive", "Archive a rule: never injected again, history kept", (*memory.Service).ArchiveRule)
}

func newRulesAcceptCmd(a *app) *cobra.Command {
	var at, as, category string
	c := &cobra.Command{
		Use:   "accept ID [--as NEW_ID] [--category C]",
		Short: "Accept a candidate rule, under an id and category of yours if you like, and say what its activation still needs; for an exception proposal, also exclude its tag from the original rule",
		Args:  exactArgs(1, "the candidate rule's id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			now, err := parseCorrectionTime("at", at)
			if err != nil {
				return err
			}
			mem, err := a.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			v, err := mem.AcceptCandidate(cmd.Context(), args[0], memory.AcceptAs{RuleID: as, Category: category}, now)
			if err != nil {
				return err
			}
			return a.output(v, func(w io.Writer) {
				fmt.Fprintf(w, "accepted %s (%s): %s\n", v.RuleID, v.Category, v.Needs)
			})
		},
	}
	c.Flags().StringVar(&at, "at", "", "time of the change (RFC 3339)")
	c.Flags().StringVar(&as, "as", "", "the rule id it takes (a proposed.* id is renamed; its history moves with it)")
	c.Flags().StringVar(&category, "category", "", "the category it takes, e.g. tool_preference (its thresholds follow)")
	return c
}

func newRulesRejectCmd(a *app) *cobra.Command {
	return ruleActionCmd(a, "reject", "Reject a candidate rule (it is archived); an exception proposal is never proposed again and the original rule stays as it was",
		func(mem *memory.Service, ctx context.Context, id string, at time.Time) (engine.RuleView, error) {
			return mem.ReviewCandidate(ctx, id, false, at)
		})
}
