package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/spf13/cobra"
)

func newConfirmCmd(a *app) *cobra.Command {
	var accept, reject, asNew bool
	var ruleID, at, status, direction string
	var limit int
	c := &cobra.Command{
		Use:   "confirm [ID ...] (--accept [--rule OTHER] | --reject | --new)",
		Short: "List pending confirmations, or resolve one or more of them",
		Args:  cobra.ArbitraryArgs, // the ids (markUsage would otherwise refuse every argument)
		Long: `Without ids, lists the pending confirmations (corrections whose best match
scored in the confirm band). With ids, resolves each: --accept records the
evidence on the top candidate (or on --rule OTHER), --reject closes it, --new
proposes a candidate rule from its text. --polarity support|contradict sets
the direction when the one the confirmation shows is wrong.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			n := 0
			action := ""
			for _, f := range []struct {
				set  bool
				name string
			}{{accept, memory.ActionAccept}, {reject, memory.ActionReject}, {asNew, memory.ActionNew}} {
				if f.set {
					n++
					action = f.name
				}
			}
			if len(args) == 0 {
				if n > 0 || ruleID != "" {
					return usagef("confirm: give the ids to resolve")
				}
				return a.listPending(cmd, status, limit)
			}
			if n != 1 {
				return usagef("confirm: give exactly one of --accept, --reject, --new")
			}
			if ruleID != "" && action != memory.ActionAccept {
				return usagef("confirm: --rule goes with --accept")
			}
			var pol engine.Polarity
			switch direction {
			case "":
			case "support", "supports", "1":
				pol = engine.Reinforce
			case "contradict", "contradicts", "-1":
				pol = engine.Counter
			default:
				return usagef("confirm: --polarity %q: want support or contradict", direction)
			}
			if pol != 0 && action == memory.ActionReject {
				return usagef("confirm: --polarity goes with --accept or --new")
			}
			ids := make([]int64, len(args))
			for i, s := range args {
				id, err := strconv.ParseInt(s, 10, 64)
				if err != nil || id <= 0 {
					return usagef("confirm: %q is not a confirmation id", s)
				}
				ids[i] = id
			}
			when, err := parseCorrectionTime("at", at)
			if err != nil {
				return err
			}
			core, err := a.openCore(cmd.Context())
			if err != nil {
				return err
			}
			if len(ids) == 1 {
				res, err := core.Memory.Confirm(cmd.Context(), ids[0], action, ruleID, pol, when)
				if err != nil {
					return err
				}
				return a.output(res, func(w io.Writer) { printConfirm(w, ids[0], &res) })
			}
			items := core.Memory.ConfirmBatch(cmd.Context(), ids, action, ruleID, pol, when)
			failed, code := 0, ""
			for _, it := range items {
				if it.Error != nil {
					failed++
					code = sameOr(code, it.Error.Code, engine.EINVALID)
				}
			}
			err = a.output(map[string]any{"results": items}, func(w io.Writer) {
				for _, it := range items {
					if it.Error != nil {
						fmt.Fprintf(w, "%d: error: %s\n", it.ID, it.Error.Message)
					} else {
						printConfirm(w, it.ID, it.Result)
					}
				}
			})
			if err == nil && failed > 0 {
				err = engine.Errorf(code, "%d of %d confirmations could not be resolved", failed, len(items))
			}
			return err
		},
	}
	f := c.Flags()
	f.BoolVar(&accept, "accept", false, "the correction meant the top candidate (or --rule)")
	f.BoolVar(&reject, "reject", false, "the correction meant none of them; record nothing")
	f.BoolVar(&asNew, "new", false, "propose a new candidate rule from the correction")
	f.StringVar(&ruleID, "rule", "", "with --accept: the rule the correction meant")
	f.StringVar(&direction, "polarity", "", "with --accept or --new: support (the words support the rule) or contradict (they contradict it), when the confirmation's own direction is wrong")
	f.StringVar(&at, "at", "", "time of the resolution (RFC 3339)")
	f.StringVar(&status, "status", engine.PendingOpen, "when listing: pending, accepted, rejected, new_rule or all")
	f.IntVar(&limit, "limit", 100, "when listing: at most this many")
	return c
}

// printConfirm prints one resolved confirmation: its status, the evidence
// recorded, and whether it promoted a candidate or activated the rule.
func printConfirm(w io.Writer, id int64, r *memory.ConfirmResult) {
	fmt.Fprintf(w, "%d: %s", id, r.Status)
	if r.RecordResult != nil {
		fmt.Fprintf(w, " %s %s (alpha %g beta %g)", r.EventType, r.RuleID, r.Alpha, r.Beta)
	}
	if r.Promoted {
		fmt.Fprint(w, "; promoted from candidate")
	}
	if r.Activated {
		fmt.Fprint(w, "; now active: it is in the persona")
	}
	fmt.Fprintln(w)
}

func (a *app) listPending(cmd *cobra.Command, status string, limit int) error {
	mem, err := a.openMemory(cmd.Context())
	if err != nil {
		return err
	}
	list, err := mem.ListConfirmations(cmd.Context(), status, limit)
	if err != nil {
		return err
	}
	items := list.Confirmations
	return a.output(list, func(w io.Writer) {
		if len(items) == 0 {
			which := status + " "
			if status == "all" {
				which = ""
			}
			fmt.Fprintf(w, "no %sconfirmations\n", which)
		}
		for _, p := range items {
			top := ""
			if len(p.Candidates) > 0 {
				top = fmt.Sprintf("%s %.4f", p.Candidates[0].RuleID, p.Candidates[0].Score)
			}
			if p.DirectionUnsure {
				top += "  (direction unsure: give --polarity)"
			}
			fmt.Fprintf(w, "%d  %-9s %-45q %s\n", p.ID, p.Status, p.Text, top)
			if p.Instruction != "" {
				fmt.Fprintf(w, "   reported as %q\n", p.Instruction)
			}
		}
	})
}

// sameOr folds the codes of failed batch items into the batch's error
// code: the first one while the others have the same exit code (one
// unknown and one resolved already are both exit 1), mixed once they do
// not.
func sameOr(sofar, code, mixed string) string {
	if sofar == "" {
		return code
	}
	if exitCode(engine.Errorf(sofar, "")) == exitCode(engine.Errorf(code, "")) {
		return sofar
	}
	return mixed
}
