package main

import (
	"fmt"
	"io"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/spf13/cobra"
)

// whyRule is the answer of `lexsona why ID`: the rule now and every event
// that made it so, in the order recorded.
type whyRule struct {
	Rule    engine.RuleView `json:"rule"`
	History []engine.Event  `json:"history"`
}

// whyScope is the answer of `lexsona why` with scope flags: every rule's
// decision for that context, the winners and the conflict losers.
type whyScope struct {
	Scope     engine.Scope      `json:"scope"`
	Winners   []string          `json:"winners"`
	Losers    []engine.Loss     `json:"losers"`
	Decisions []engine.Decision `json:"decisions"`
}

const historyPage = 10000

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
			db, cfg, err := a.openDBConfig(cmd.Context())
			if err != nil {
				return err
			}
			if len(args) == 0 {
				scope, err := sf.scope()
				if err != nil {
					return err
				}
				snap, err := db.Snapshot(cmd.Context(), engine.SnapshotRequest{Scope: scope, Now: at, Trace: true})
				if err != nil {
					return err
				}
				out := whyScope{Scope: scope, Winners: []string{}, Losers: snap.Losers, Decisions: snap.Decisions}
				for _, r := range snap.Rules {
					out.Winners = append(out.Winners, r.RuleID)
				}
				return a.output(out, func(w io.Writer) {
					fmt.Fprintf(w, "scope %s\n", scope)
					for _, d := range out.Decisions {
						fmt.Fprintf(w, "  %-40s %-14s %s\n", d.RuleID, d.Outcome, d.Reason)
					}
				})
			}
			r, err := db.GetRule(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			out := whyRule{Rule: engine.View(r, cfg, at), History: []engine.Event{}}
			var after int64
			for {
				page, err := db.History(cmd.Context(), r.RuleID, after, historyPage)
				if err != nil {
					return err
				}
				out.History = append(out.History, page...)
				if len(page) < historyPage {
					break
				}
				after = page[len(page)-1].EventID
			}
			return a.output(out, func(w io.Writer) {
				v, t := out.Rule, cfg.For(out.Rule.Category)
				fmt.Fprintf(w, "%s [%s] %s\n  scope %s\n  confidence %.4f (alpha %g, beta %g, n %d; active needs n >= %d and confidence >= %.2f)\n",
					v.RuleID, v.State, v.Text, v.Scope, v.Confidence, v.Alpha, v.Beta, v.Evidence, t.NMin, t.CMin)
				for _, e := range out.History {
					fmt.Fprintf(w, "  %s  #%d %-15s alpha %g beta %g  %s\n", e.At.Format(time.RFC3339), e.EventID, e.EventType, e.Alpha, e.Beta, oneLine(e.UserText, e.Detail))
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
