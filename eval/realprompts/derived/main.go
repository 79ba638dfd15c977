// Command derived writes the derived figures of the real-prompt corpus
// (eval/realprompts/derived: meta.json and shard-*.jsonl) from the labels
// and the texts rebuild.py fetched into eval/realprompts/.texts, with the
// real all-MiniLM-L6-v2 and the default registry: what the hook's capture
// decision needs of each prompt, and nothing that gives its words back
// (see eval/derived.go). Run it from the repository's root:
//
//	python3 eval/realprompts/rebuild.py --mirrors DIR
//	go run ./eval/realprompts/derived [-model-dir .cache/models/all-MiniLM-L6-v2] [-ort-lib .cache/ort/libonnxruntime.so.1]
//
// It also writes split.txt, the fixed split of the repositories into the
// train and held-out sides (eval.RealSplitOf). The same texts, model and
// registry always give the same files.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/lexsona/lexsona/eval"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/registry"
	_ "github.com/lexsona/lexsona/store/sqlite" // the scratch store the registry is embedded into
)

func main() {
	corpus := flag.String("corpus", "eval/realprompts", "the real-prompt corpus (labels.jsonl, .texts/)")
	out := flag.String("out", "eval/realprompts/derived", "where the derived figures go")
	modelDir := flag.String("model-dir", ".cache/models/all-MiniLM-L6-v2", "the real all-MiniLM-L6-v2")
	ortLib := flag.String("ort-lib", ".cache/ort/libonnxruntime.so.1", "the ONNX Runtime library")
	flag.Parse()
	if err := run(*corpus, *out, *modelDir, *ortLib); err != nil {
		fmt.Fprintln(os.Stderr, "derived:", err)
		os.Exit(1)
	}
}

func run(corpus, out, modelDir, ortLib string) error {
	ctx := context.Background()
	start := time.Now()
	emb, err := auto.Open(ctx, models.Options{Backend: "ort", ModelDir: modelDir, OrtLib: ortLib})
	if err != nil {
		return err
	}
	defer emb.Close()
	meta, ps, err := eval.DeriveRealPrompts(ctx, emb, registry.Default(), registry.DefaultYAML(), corpus, os.Stderr)
	if err != nil {
		return err
	}
	if err := eval.WriteDerived(out, meta, ps); err != nil {
		return err
	}
	labels, err := eval.LoadRealLabels(corpus)
	if err != nil {
		return err
	}
	if err := eval.WriteRealSplit(out, labels); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "derived: %d prompts in %s (%s)\n", meta.Prompts, out, time.Since(start).Round(time.Second))
	return nil
}
