package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/lexsona/lexsona/eval"
	"github.com/lexsona/lexsona/gate"
	"github.com/lexsona/lexsona/registry"
)

func newEvalGateCmd(a *app) *cobra.Command {
	var write string
	c := &cobra.Command{
		Use:   "gate [--embedder E] [--write FILE]",
		Short: "Fit and measure the correction gate on the built-in prompt stream",
		Long: `Embeds the built-in prompt stream (eval/testdata/stream: ordinary prompts
and corrections, in sessions, by four writers), fits the correction gate —
a logistic model over the embedding and cue features, and a cue-only one —
on the dev split with its threshold chosen out of fold (at most 2% of
ordinary dev prompts pass), and prints both gates' precision and recall on
dev (out of fold) and on the held-out test split, and the precision at the
share of corrections seen in real transcripts (3.4%). --write FILE writes
the two fitted gates as the weights file the build embeds (gate/weights.json).`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			items, err := shippedStream(registry.Default())
			if err != nil {
				return err
			}
			emb, err := a.openEmbedder(ctx)
			if err != nil {
				return err
			}
			rep, err := eval.RunGate(ctx, emb, items, a.stderr)
			if err != nil {
				return err
			}
			if write != "" {
				data, err := json.MarshalIndent(gate.Set{Models: rep.Models}, "", " ")
				if err != nil {
					return err
				}
				if err := os.WriteFile(write, append(data, '\n'), 0o644); err != nil {
					return fmt.Errorf("writing %s: %w", write, err)
				}
				fmt.Fprintf(a.stderr, "lexsona: gates written to %s\n", write)
			}
			return a.output(rep, func(w io.Writer) { eval.WriteGateText(w, rep) })
		},
	}
	c.Flags().StringVar(&write, "write", "", "write the fitted gates to this weights file")
	return c
}
