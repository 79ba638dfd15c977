package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/lexsona/lexsona/eval"
	"github.com/lexsona/lexsona/registry"
)

func newEvalStreamCmd(a *app) *cobra.Command {
	var split, real, side string
	var texts bool
	c := &cobra.Command{
		Use:   "stream [--split test|dev | --real DIR [--side test|train] [--texts]] [--embedder E]",
		Short: "Send the built-in prompt stream through the hook's capture and count what it learned",
		Long: `Sends every prompt of one split of the built-in prompt stream
(eval/testdata/stream) through the same capture the Claude Code hook runs
(the correction gate, the classifier, then what the decision calls for), one
throw-away store per writer, sessions in order with their scope, and prints
per kind of prompt how many were recorded on the right rule, on a wrong
rule, as reinforcements or counterexamples, put in the inbox or left alone;
the gate's precision and recall; and the polarity of what was recorded.
With --real DIR (eval/realprompts) it replays the real corpus's held-out
repositories (--side train: the calibration's) from their derived figures
(DIR/derived: what the capture decision reads of each prompt, no text),
with 95% intervals over repositories, per repository, and where the
corrections it missed went; it needs the real model the figures were made
with. With --texts it sends the real prompts whose texts rebuild.py fetched
into DIR/.texts instead, one writer per repository.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if split != "test" && split != "dev" {
				return usagef("--split %q: want test or dev", split)
			}
			if side != eval.RealTest && side != eval.RealTrain {
				return usagef("--side %q: want test or train", side)
			}
			ctx := cmd.Context()
			reg := registry.Default()
			if real != "" && !texts {
				rc, err := eval.LoadRealCorpus(real)
				if err != nil {
					return err
				}
				emb, err := a.openEmbedder(ctx)
				if err != nil {
					return err
				}
				rep, err := eval.ReplayReal(ctx, emb, reg, registry.DefaultYAML(), rc, eval.RealOptions{Side: side})
				if err != nil {
					return err
				}
				return a.output(rep, func(w io.Writer) { eval.WriteRealText(w, rep) })
			}
			items, err := shippedStream(reg)
			if err != nil {
				return err
			}
			if real != "" {
				var missing int
				if items, missing, err = eval.LoadRealStream(real); err != nil {
					return err
				}
				fmt.Fprintf(a.stderr, "stream: %d real prompts with their text, %d without\n", len(items), missing)
				split = "real"
			}
			emb, err := a.openEmbedder(ctx)
			if err != nil {
				return err
			}
			rep, err := eval.RunStream(ctx, emb, reg, eval.SplitStream(items, split), split, a.stderr)
			if err != nil {
				return err
			}
			return a.output(rep, func(w io.Writer) { eval.WriteStreamText(w, rep) })
		},
	}
	c.Flags().StringVar(&split, "split", "test", "the split to send: test (held out) or dev")
	c.Flags().StringVar(&real, "real", "", "replay the real-prompt corpus in `DIR` (eval/realprompts) from its derived figures")
	c.Flags().StringVar(&side, "side", eval.RealTest, "with --real: the repositories to replay, test (held out) or train")
	c.Flags().BoolVar(&texts, "texts", false, "with --real: send the texts rebuilt into DIR/.texts through the whole capture instead of the derived figures")
	return c
}

// shippedStream is the built-in prompt stream, every rule it names checked
// against reg.
func shippedStream(reg *registry.Registry) ([]eval.StreamItem, error) {
	return eval.ShippedStream(func(id string) bool { _, _, ok := reg.Lookup(id); return ok })
}
