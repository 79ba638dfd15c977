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
//
// With -replay test (or train) it reads the derived figures instead (no
// texts needed) and prints what the hook's capture decision makes of that
// side's repositories (eval.ReplayReal): what `go test ./eval -run
// TestRealPromptsHeldOut -v` checks.
//
// With -calibrate it reads the derived figures instead (no texts needed)
// and prints what eval.CalibrateReal chooses on the train repositories and
// measures on the held-out ones; -write then also writes the gate kept
// (gate/weights.json, the embedder's entry) and the stance model
// (classifier/stance.json).
//
// With -curve it reads the derived figures instead (no texts needed) and
// prints eval.RealLearningCurve: the refitted gate learned from 25%, 50%,
// 75% and all of the train repositories (-seeds draws of each share),
// measured on the held-out ones, all and English only. Nothing is written.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/lexsona/lexsona/eval"
	"github.com/lexsona/lexsona/gate"
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
	calibrate := flag.Bool("calibrate", false, "calibrate on the train repositories from the derived figures, and measure the held-out ones")
	replay := flag.String("replay", "", "replay one side (test or train) of the corpus from the derived figures")
	curve := flag.Bool("curve", false, "print the learning curve of the refitted gate over shares of the train repositories (eval.RealLearningCurve)")
	seeds := flag.Int("seeds", 5, "with -curve: draws of the train repositories per share")
	write := flag.Bool("write", false, "with -calibrate: write the gate kept to gate/weights.json and the stance model to classifier/stance.json")
	flag.Parse()
	ctx := context.Background()
	start := time.Now()
	emb, err := auto.Open(ctx, models.Options{Backend: "ort", ModelDir: *modelDir, OrtLib: *ortLib})
	if err == nil {
		defer emb.Close()
		switch {
		case *replay != "":
			err = runReplay(ctx, emb, *corpus, *replay)
		case *curve:
			err = runCurve(ctx, emb, *corpus, *seeds)
		case *calibrate:
			err = runCalibrate(ctx, emb, *corpus, *write)
		default:
			err = run(ctx, emb, *corpus, *out)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "derived:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "derived: done in %s\n", time.Since(start).Round(time.Second))
}

func run(ctx context.Context, emb models.Embedder, corpus, out string) error {
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
	fmt.Fprintf(os.Stderr, "derived: %d prompts in %s\n", meta.Prompts, out)
	return nil
}

func runReplay(ctx context.Context, emb models.Embedder, corpus, side string) error {
	if side != eval.RealTest && side != eval.RealTrain {
		return fmt.Errorf("-replay %q: want test or train", side)
	}
	rc, err := eval.LoadRealCorpus(corpus)
	if err != nil {
		return err
	}
	rep, err := eval.ReplayReal(ctx, emb, registry.Default(), registry.DefaultYAML(), rc, eval.RealOptions{Side: side})
	if err != nil {
		return err
	}
	eval.WriteRealText(os.Stdout, rep)
	return nil
}

// loadCalibrationInputs reads the real corpus at corpus, the default pack,
// and the written stream's dev split, which calibration and the learning
// curve learn from besides the corpus's train repositories.
func loadCalibrationInputs(corpus string) (*eval.RealCorpus, *registry.Registry, []eval.StreamItem, error) {
	rc, err := eval.LoadRealCorpus(corpus)
	if err != nil {
		return nil, nil, nil, err
	}
	reg := registry.Default()
	stream, err := eval.ShippedStream(func(id string) bool { _, _, ok := reg.Lookup(id); return ok })
	if err != nil {
		return nil, nil, nil, err
	}
	return rc, reg, eval.SplitStream(stream, "dev"), nil
}

func runCalibrate(ctx context.Context, emb models.Embedder, corpus string, write bool) error {
	rc, reg, dev, err := loadCalibrationInputs(corpus)
	if err != nil {
		return err
	}
	cal, err := eval.CalibrateReal(ctx, emb, reg, registry.DefaultYAML(), rc, dev, os.Stderr)
	if err != nil {
		return err
	}
	eval.WriteRealCalibrationText(os.Stdout, cal)
	kept := cal.Chosen()
	if kept.Gate == "" {
		return fmt.Errorf("no gate keeps the train repositories' ordinary suggestions within %.1f%% (all and English): nothing kept, nothing written", 100*eval.RealInboxCap)
	}
	fmt.Printf("Kept: gate %s at threshold %.3f, inbox share %.0f%% of a session's prompts\n", kept.Gate, kept.Threshold, 100*kept.Share)
	if !write {
		return nil
	}
	set, err := gate.Default()
	if err != nil {
		return err
	}
	for i, m := range set.Models {
		if m.ModelID == emb.Identity().ID() {
			set.Models[i] = cal.Gates[kept.Gate]
		}
	}
	if err := writeJSON("gate/weights.json", set); err != nil {
		return err
	}
	if cal.Stance == nil {
		return fmt.Errorf("no stance model: the labelled stances hold one direction only")
	}
	cal.Stance.Trained = fmt.Sprintf("%d labelled stances whose rule was the top candidate: the written stream's dev split and the real corpus's train repositories (eval.CalibrateReal)", cal.StanceReport.Learned)
	return writeJSON("classifier/stance.json", cal.Stance)
}

func runCurve(ctx context.Context, emb models.Embedder, corpus string, seeds int) error {
	rc, reg, dev, err := loadCalibrationInputs(corpus)
	if err != nil {
		return err
	}
	pts, err := eval.RealLearningCurve(ctx, emb, reg, registry.DefaultYAML(), rc, dev, eval.RealCurveFractions, seeds, os.Stderr)
	if err != nil {
		return err
	}
	eval.WriteRealCurveText(os.Stdout, pts)
	return nil
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
