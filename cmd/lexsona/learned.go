package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/lexsona/lexsona/memory"
	"github.com/spf13/cobra"
)

// parseSince reads a --since value: a duration back from now with d for
// days ("7d", "36h", "90m"), or an RFC 3339 time.
func parseSince(v string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), nil
	}
	if days, ok := strings.CutSuffix(v, "d"); ok {
		if n, err := strconv.ParseFloat(days, 64); err == nil && n >= 0 {
			return now.Add(-time.Duration(n * 24 * float64(time.Hour))).UTC(), nil
		}
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d).UTC(), nil
	}
	return time.Time{}, usagef("--since %q: want a duration back from now (7d, 36h, 90m) or an RFC 3339 time", v)
}

func newLearnedCmd(a *app) *cobra.Command {
	var since string
	var limit int
	c := &cobra.Command{
		Use:   "learned [--since 7d] [--limit N]",
		Short: "What LexSona learned recently: evidence recorded, suggestions waiting, and every captured prompt with what it became",
		Long: `Lists, newest first, what was learned since --since:
the evidence recorded (event id, rule, direction, the words it came from, and
whether it was retracted — lexsona retract EVENT_ID takes one back), the
suggestions waiting in the inbox (lexsona confirm reviews them), and what
the hooks captured: each prompt's excerpt, what it became (recorded, pending,
stated, ignored) and the gate's verdict.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			from, err := parseSince(since, time.Now())
			if err != nil {
				return err
			}
			mem, err := a.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			l, err := mem.Learned(cmd.Context(), from, limit)
			if err != nil {
				return err
			}
			return a.output(l, func(w io.Writer) { writeLearned(w, l) })
		},
	}
	c.Flags().StringVar(&since, "since", "7d", "how far back: a duration (7d, 36h) or an RFC 3339 time")
	c.Flags().IntVar(&limit, "limit", memory.DefaultLearnedLimit, fmt.Sprintf("at most this many of each kind (1 to %d)", memory.MaxLearnedLimit))
	return c
}

func writeLearned(w io.Writer, l memory.Learned) {
	fmt.Fprintf(w, "Since %s:\n\nRecorded (%d):\n", l.Since.Format(time.RFC3339), len(l.Events))
	for _, e := range l.Events {
		state := ""
		if e.RetractedBy != 0 {
			state = fmt.Sprintf(" [retracted by event %d]", e.RetractedBy)
		}
		fmt.Fprintf(w, "  #%d %s %s of [%s] %q%s\n      from %q\n", e.EventID, e.At.Format("2006-01-02 15:04"), e.EventType, e.RuleID,
			oneLineCut(e.RuleText, 80), state, oneLineCut(e.UserText, 100))
	}
	fmt.Fprintf(w, "\nWaiting for review (%d):\n", len(l.Suggestions))
	for _, p := range l.Suggestions {
		about := "a new rule"
		if len(p.Candidates) > 0 {
			about = "[" + p.Candidates[0].RuleID + "]"
		}
		dir := "supports"
		if p.Polarity < 0 {
			dir = "contradicts"
		}
		fmt.Fprintf(w, "  %d: %q %s %s (seen %d)\n", p.ID, oneLineCut(p.Text, 100), dir, about, max(p.Seen, 1))
	}
	fmt.Fprintf(w, "\nCaptured prompts (%d):\n", len(l.Captures))
	for _, c := range l.Captures {
		verdict := ""
		if c.Gate != nil {
			verdict = fmt.Sprintf(" gate %.2f", *c.Gate)
		}
		fmt.Fprintf(w, "  %s %-8s%s %q", c.At.Format("2006-01-02 15:04"), c.Action, verdict, oneLineCut(c.Excerpt, 80))
		if c.Reason != "" {
			fmt.Fprintf(w, " — %s", c.Reason)
		}
		fmt.Fprintln(w)
	}
}

// oneLineCut is s on one line, cut to n characters with an ellipsis.
func oneLineCut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func newRetractCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "retract EVENT_ID",
		Short: "Take back a wrongly recorded event: its rule's evidence is recomputed, and the retraction kept in the history",
		Long: `Takes back one reinforcement, counterexample or confirmation (the event
ids are in lexsona learned and lexsona why RULE): the rule loses its
evidence, a statement it made is withdrawn, and a manual_override event
records the retraction beside the event, which stays in the history.`,
		Args: exactArgs(1, "the id of the event to retract"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return usagef("event id %q: want a positive whole number", args[0])
			}
			mem, err := a.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			res, err := mem.Retract(cmd.Context(), id, time.Time{})
			if err != nil {
				return err
			}
			return a.output(res, func(w io.Writer) {
				fmt.Fprintf(w, "retracted event %d (retraction: event %d); rule %s is now %s, confidence %.4f\n",
					res.EventID, res.RetractionID, res.Rule.RuleID, res.Rule.State, res.Rule.Confidence)
			})
		},
	}
}
