package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/spf13/cobra"
)

// embedOutput is the contract of `lexsona embed --json`.
type embedOutput struct {
	Embedder string      `json:"embedder"`
	Model    string      `json:"model"`
	Dims     int         `json:"dims"`
	Vectors  [][]float32 `json:"vectors"`
}

func newEmbedCmd(a *app) *cobra.Command {
	var file string
	var batch int
	c := &cobra.Command{
		Use:   "embed [--file F | TEXT ...]",
		Short: "Embed texts (one per argument, or one per line of a file) with the configured embedder",
		Args:  cobra.ArbitraryArgs, // the texts (markUsage would otherwise refuse every argument)
		RunE: func(cmd *cobra.Command, args []string) error {
			if (file == "") == (len(args) == 0) {
				return usagef("embed wants texts as arguments or --file, not both and not neither")
			}
			if batch < 1 || batch > 4096 {
				return usagef("--batch %d: want 1 to 4096", batch)
			}
			texts := args
			if file != "" {
				var err error
				if texts, err = readLines(file); err != nil {
					return err
				}
			}
			emb, err := a.openFittedEmbedder(cmd.Context())
			if err != nil {
				return err
			}
			id := emb.Identity()
			out := embedOutput{Embedder: emb.Backend(), Model: id.ID(), Dims: id.Dims, Vectors: make([][]float32, 0, len(texts))}
			for start := 0; start < len(texts); start += batch {
				vecs, err := emb.Embed(cmd.Context(), texts[start:min(start+batch, len(texts))])
				if err != nil {
					return err
				}
				out.Vectors = append(out.Vectors, vecs...)
			}
			return a.output(out, func(w io.Writer) {
				fmt.Fprintf(w, "%d vectors of %d dimensions (%s %s)\n", len(out.Vectors), out.Dims, out.Embedder, out.Model)
			})
		},
	}
	c.Flags().StringVar(&file, "file", "", "embed each line of this file (- for standard input)")
	c.Flags().IntVar(&batch, "batch", models.DefaultMaxBatch, "texts per model call")
	return c
}

// readLines reads the lines of path ("-" is standard input); an empty file is
// an error, a line may be up to 1 MiB.
func readLines(path string) ([]string, error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, engine.Errorf(engine.EINVALID, "cannot read %s: %v", path, err)
		}
		defer f.Close()
		r = f
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), engine.MaxUserTextLength+1)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, engine.Errorf(engine.EINVALID, "reading %s: %v", path, err)
	}
	if len(lines) == 0 {
		return nil, engine.Errorf(engine.EINVALID, "%s has no lines to embed", path)
	}
	return lines, nil
}
