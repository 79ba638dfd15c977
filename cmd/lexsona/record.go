package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/spf13/cobra"
)

func newRecordCmd(a *app) *cobra.Command {
	var ruleID, text, instruction, agentOutput, frame, at, key string
	var counter bool
	var sf scopeFlags
	c := &cobra.Command{
		Use:   "record TEXT | --text T [--rule ID] [--counter] [scope flags]",
		Short: "Record a correction: a reinforcement of a rule, or with --counter a counterexample",
		Long: `Records a correction, given as arguments (words are joined with spaces, as
classify does) or with --text. With --rule (or a CORRECT[rule_id]: prefix) it
is evidence on that rule. Without, the text is classified: an auto match is
evidence on the matched rule, the confirm band stores a pending confirmation
(see lexsona confirm), and a text that matches nothing proposes a candidate rule.
With --instruction (the standing instruction the text states, as one short
English sentence) that sentence is classified and becomes a proposed rule's
text, while the text stays the receipt: a correction said in any language
reaches an English rule.`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch given := cmd.Flags().Changed("text"); {
			case given && len(args) > 0:
				return usagef("%s: give the correction text once, as arguments or with --text, not both", cmd.CommandPath())
			case !given && len(args) == 0:
				return usagef("%s wants the correction text, as arguments or with --text", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				text = strings.Join(args, " ")
			}
			when, err := parseCorrectionTime("at", at)
			if err != nil {
				return err
			}
			scope, err := sf.scope()
			if err != nil {
				return err
			}
			pol := engine.Reinforce
			if counter {
				pol = engine.Counter
			}
			// Bad input is refused before anything is opened or synced.
			corr, err := memory.NormalizeCorrection(engine.Correction{RuleID: ruleID, Polarity: pol, UserText: text,
				Instruction: instruction, AgentOutput: agentOutput, FrameID: frame, Scope: scope, At: when, IdempotencyKey: key}, time.Now())
			if err != nil {
				return err
			}
			// With --rule it is recorded as explicit (score 1), as POST
			// /v1/corrections does; either way the registry in force is synced
			// first, so the default pack's rules exist on a new database.
			return a.recordClassified(cmd, corr)
		},
	}
	f := c.Flags()
	f.StringVar(&ruleID, "rule", "", "the rule the correction is about")
	f.StringVar(&text, "text", "", "the user's correction, as said (or give it as arguments)")
	f.StringVar(&instruction, "instruction", "", "the standing instruction the text states, as one short English sentence (classified instead of the text)")
	f.BoolVar(&counter, "counter", false, "a counterexample (the rule did not hold here) instead of a reinforcement")
	f.StringVar(&agentOutput, "agent-output", "", "what the agent did that was corrected")
	f.StringVar(&frame, "frame", "", "Lex frame id this correction belongs to")
	f.StringVar(&at, "at", "", "time of the correction (RFC 3339), for backfills")
	f.StringVar(&key, "idempotency-key", "", "a retry with the same key records nothing new")
	sf.register(f, false)
	sf.registerDetect(f)
	return c
}

func printRecord(w io.Writer, res *memory.RecordResult) {
	fmt.Fprintf(w, "%s %s: alpha %g beta %g confidence %.4f active %v (event %d)\n",
		res.EventType, res.RuleID, res.Alpha, res.Beta, res.Confidence, res.Active, res.EventID)
	if res.Exception != nil {
		fmt.Fprintf(w, "proposed exception %s for tag %q after %d counterexamples: accept with `lexsona rules accept %s`\n",
			res.Exception.Rule.RuleID, res.Exception.Tag, res.Exception.Count, res.Exception.Rule.RuleID)
	}
}

// recordClassified classifies the correction and acts on the decision.
func (a *app) recordClassified(cmd *cobra.Command, c engine.Correction) error {
	core, err := a.openCore(cmd.Context())
	if err != nil {
		return err
	}
	res, _, err := core.Memory.Record(cmd.Context(), c)
	if err != nil {
		return err
	}
	return a.output(res, func(w io.Writer) {
		switch {
		case res.PendingID != 0:
			others := "--rule OTHER, --reject, --new"
			if res.Polarity == engine.Counter {
				others = "--rule OTHER, --reject" // a counterexample proposes no new rule
			}
			fmt.Fprintf(w, "confirm: %s scored %.4f — resolve with `lexsona confirm %d --accept` (or %s)\n",
				res.Candidates[0].RuleID, res.Score, res.PendingID, others)
		case !res.Stored():
			fmt.Fprintf(w, "%s: nothing recorded — %s\n", res.Decision, res.Reason)
		case res.CreatedRule != nil:
			fmt.Fprintf(w, "new_rule: proposed candidate %s — review with `lexsona rules show %s`\n", res.CreatedRule.RuleID, res.CreatedRule.RuleID)
		default:
			fmt.Fprintf(w, "%s (score %.4f) ", res.Decision, res.Score)
			printRecord(w, res.RecordResult)
		}
	})
}
