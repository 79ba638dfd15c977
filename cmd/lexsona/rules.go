package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/spf13/cobra"
)

func newRulesCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "rules", Short: "Add, list, show, edit and archive rules"}
	c.AddCommand(newRulesAddCmd(a), newRulesListCmd(a), newRulesShowCmd(a), newRulesEditCmd(a),
		newRulesArchiveCmd(a), newRulesAcceptCmd(a), newRulesRejectCmd(a))
	return c
}

func newRulesAddCmd(a *app) *cobra.Command {
	var id, category, severity, text, topic, at string
	var sf scopeFlags
	c := &cobra.Command{
		Use:   "add --rule ID --category C --severity S --text T",
		Short: "Add a rule at the prior (alpha 2, beta 5)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := engine.ParseSeverity(severity); err != nil {
				return err
			}
			scope, err := sf.scope()
			if err != nil {
				return err
			}
			now, err := parseTime("at", at)
			if err != nil {
				return err
			}
			// The rule's text is embedded with the embedder of the registry in
			// force (fitted, for the lexical one), without syncing it.
			base, err := a.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			emb, err := a.openFittedEmbedder(cmd.Context())
			if err != nil {
				return err
			}
			v, err := base.WithEmbedders(emb, nil).AddRule(cmd.Context(), memory.NewRule{RuleID: id, Category: category, Severity: severity,
				Text: text, Scope: scope, Topic: topic, At: now})
			if err != nil {
				return err
			}
			return a.printView(v)
		},
	}
	f := c.Flags()
	f.StringVar(&id, "rule", "", "rule id, lowercase dotted (e.g. tool.no-sed-for-file-editing)")
	f.StringVar(&category, "category", "", "category: tool_preference, communication_style, security_policy, code_style or another lowercase word")
	f.StringVar(&severity, "severity", "should", "must, should or style")
	f.StringVar(&text, "text", "", "the rule's text as it is injected")
	f.StringVar(&topic, "topic", "", "conflict group: rules of one topic compete")
	f.StringVar(&at, "at", "", "creation time (RFC 3339), for backfills")
	sf.register(f, true)
	for _, n := range []string{"rule", "category", "text"} {
		c.MarkFlagRequired(n)
	}
	return c
}

func newRulesListCmd(a *app) *cobra.Command {
	var category, status, source, now string
	var limit int
	var sf scopeFlags
	c := &cobra.Command{
		Use:   "list",
		Short: "List rules, optionally filtered",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 0 {
				return usagef("--limit %d: want 0 (no limit) or more", limit)
			}
			// --status takes a stored status or a state of the STATE column.
			state := ""
			switch status {
			case "active", "provisional", "inactive", "dormant", "stale_weak":
				state, status = status, string(engine.StatusActiveEligible)
			}
			q := memory.RulesQuery{Category: category, Status: status, Source: source}
			if cmd.Flags().Changed("env") || cmd.Flags().Changed("project") || cmd.Flags().Changed("agent") || cmd.Flags().Changed("tag") {
				s, err := sf.scope()
				if err != nil {
					return err
				}
				q.Scope = &s
			}
			at, err := parseTime("now", now)
			if err != nil {
				return err
			}
			q.Now = at
			mem, err := a.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			views, err := listAll(cmd.Context(), mem, q, limit)
			if err != nil {
				return err
			}
			if state != "" {
				kept := views[:0]
				for _, v := range views {
					if v.State == state {
						kept = append(kept, v)
					}
				}
				views = kept
			}
			return a.output(map[string]any{"rules": views}, func(w io.Writer) {
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "RULE\tCATEGORY\tSEVERITY\tSTATE\tCONFIDENCE\tN\tSCOPE")
				for _, v := range views {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.4f\t%d\t%s\n", v.RuleID, v.Category, v.Severity, v.State, v.Confidence, v.Evidence, v.Scope)
				}
				tw.Flush()
			})
		},
	}
	fl := c.Flags()
	fl.StringVar(&category, "category", "", "only this category")
	fl.StringVar(&status, "status", "", "only this status (active-eligible, candidate, archived) or state (active, provisional, inactive, dormant, stale_weak)")
	fl.StringVar(&source, "source", "", "only rules from this source: registry, user or correction")
	fl.IntVar(&limit, "limit", 0, "at most this many rules (0: all)")
	fl.StringVar(&now, "now", "", "assess confidence at this time (RFC 3339)")
	sf.register(fl, false)
	return c
}

// listAll returns the rules q selects, at most limit (0: all), page by page.
func listAll(ctx context.Context, mem *memory.Service, q memory.RulesQuery, limit int) ([]engine.RuleView, error) {
	views := []engine.RuleView{}
	for {
		q.Limit = memory.MaxRulesLimit
		if limit > 0 {
			q.Limit = min(limit-len(views), memory.MaxRulesLimit)
		}
		page, err := mem.ListRules(ctx, q)
		if err != nil {
			return nil, err
		}
		views = append(views, page.Rules...)
		if page.NextAfter == "" || (limit > 0 && len(views) >= limit) {
			return views, nil
		}
		q.After = page.NextAfter
	}
}

func newRulesShowCmd(a *app) *cobra.Command {
	var now string
	c := &cobra.Command{
		Use:   "show ID",
		Short: "Show one rule with its confidence and activation",
		Args:  exactArgs(1, "one rule id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			at, err := parseTime("now", now)
			if err != nil {
				return err
			}
			mem, err := a.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			v, err := mem.GetRule(cmd.Context(), args[0], at)
			if err != nil {
				return err
			}
			return a.printView(v)
		},
	}
	c.Flags().StringVar(&now, "now", "", "assess confidence at this time (RFC 3339)")
	return c
}

// printView prints a rule's view: JSON with --json, else a short summary.
func (a *app) printView(v engine.RuleView) error {
	return a.output(v, func(w io.Writer) {
		fmt.Fprintf(w, "%s  [%s, %s, %s]\n  %s\n", v.RuleID, v.Category, v.Severity, v.State, v.Text)
		fmt.Fprintf(w, "  scope %s  topic %q  status %s  source %s\n", v.Scope, v.Topic, v.Status, v.Source)
		fmt.Fprintf(w, "  alpha %g beta %g  confidence %.4f (base %.4f)  reinforcements %d counterexamples %d\n",
			v.Alpha, v.Beta, v.Confidence, v.ConfidenceBase, v.Reinforcements, v.CounterExamples)
		fmt.Fprintf(w, "  first seen %s  last correction %s\n", v.FirstSeen.Format(time.RFC3339), v.LastCorrection.Format(time.RFC3339))
	})
}
