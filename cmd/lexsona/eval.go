package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/eval"
	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/registry"
)

// evalFlags are the flags eval and eval calibrate share.
type evalFlags struct {
	dataset string
	cv      bool
}

func (f *evalFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&f.dataset, "dataset", "", "labelled JSONL dataset (default: the built-in "+eval.ShippedName+", for the default pack)")
	c.Flags().BoolVar(&f.cv, "cv", false, fmt.Sprintf("calibrate (and measure the targets) by %d-fold cross-validation even when the dataset has a dev/test split", eval.Folds))
}

// evalInputs loads the registry (--registry, else the default pack: never
// the one synced into the database) and the dataset, and opens the embedder.
func (a *app) evalInputs(ctx context.Context, f evalFlags) (*registry.Registry, *eval.Dataset, error) {
	reg := registry.Default()
	if a.registry != "" {
		var err error
		if reg, err = registry.Load(a.registry); err != nil {
			return nil, nil, err
		}
	}
	var ds *eval.Dataset
	var err error
	if f.dataset == "" {
		ds, err = eval.ShippedDataset(reg)
	} else {
		ds, err = eval.LoadDataset(f.dataset, reg)
	}
	if err != nil {
		return nil, nil, err
	}
	if _, err := a.openEmbedder(ctx); err != nil {
		return nil, nil, err
	}
	return reg, ds, nil
}

// parseThresholds parses --thresholds AUTO,CONFIRM; anything else is a usage
// error naming the flag.
func parseThresholds(v string) (*classifier.Thresholds, error) {
	if v == "" {
		return nil, nil
	}
	parts := strings.Split(v, ",")
	if len(parts) != 2 {
		return nil, usagef("--thresholds %q: want two numbers AUTO,CONFIRM such as 0.85,0.70", v)
	}
	var nums [2]float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || x > 1 {
			return nil, usagef("--thresholds %q: %q is not a number in [0, 1]", v, strings.TrimSpace(p))
		}
		nums[i] = x
	}
	if nums[1] > nums[0] {
		return nil, usagef("--thresholds %q: the confirm threshold %v is above the auto threshold %v", v, nums[1], nums[0])
	}
	return &classifier.Thresholds{Auto: nums[0], Confirm: nums[1]}, nil
}

// parseTarget checks a --target-* precision.
func parseTarget(flag string, v float64) error {
	if math.IsNaN(v) || v <= 0 || v > 1 {
		return usagef("--%s %v: want a precision in (0, 1]", flag, v)
	}
	return nil
}

func newEvalCmd(a *app) *cobra.Command {
	var f evalFlags
	var thresholds, out string
	c := &cobra.Command{
		Use:   "eval [--registry R] [--dataset D] [--embedder E] [--thresholds AUTO,CONFIRM] [--json] [--out DIR]",
		Short: "Measure the classifier's precision and recall on labelled corrections (the paper's Appendix B)",
		Long: `Embeds the registry (default: the default rule pack) with the service's
precompute job into a throw-away store in a temporary directory — never your
database — classifies every correction of the dataset (default: the built-in
one) and prints: the quality targets measured on the held-out test split at
thresholds calibrated on the dev split (auto precision ≥ 0.95, recall ≥ 0.80,
contradictions recorded as reinforcements ≤ 2%, ECE ≤ 0.05), the paper's
Appendix B table at its 0.85 and its ablation at 0.75 scored with the
paper's method (the embedding cosine alone) next to the paper's claimed
numbers, the same table for the product's score at the evaluated thresholds
(guard on and off), the three bands, the calibration (dev/test split and 5-fold
cross-validation), the numbers per split, the polarity of what would be
recorded (contradictions, false alarms, the contradiction detector's
precision and recall), the ranking and the worst errors. --json prints the
whole report; --out DIR also writes PNG plots, report.md and report.json
there. Without --thresholds it evaluates the bands the classifier would use
for the model (a calibration file, else its defaults).`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			thr, err := parseThresholds(thresholds)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			reg, ds, err := a.evalInputs(ctx, f)
			if err != nil {
				return err
			}
			rep, err := eval.Run(ctx, eval.Config{Registry: reg, Dataset: ds, Embedder: a.emb, Thresholds: thr,
				CalibrationDir: setup.ClassifierOptions(a.setupConfig()).CalibrationDir, CrossValidate: f.cv, Progress: a.stderr})
			if err != nil {
				return err
			}
			if out != "" {
				if _, err := eval.WriteDir(out, rep); err != nil {
					return fmt.Errorf("writing the report to %s: %w", out, err)
				}
				fmt.Fprintf(a.stderr, "lexsona: report written to %s\n", filepath.Join(out, eval.ReportMarkdown))
			}
			return a.output(rep, func(w io.Writer) { eval.WriteText(w, rep) })
		},
	}
	f.register(c)
	c.Flags().StringVar(&thresholds, "thresholds", "", "evaluate these bands instead of the model's: AUTO,CONFIRM (e.g. 0.85,0.70)")
	c.Flags().StringVar(&out, "out", "", "also write PNG plots, report.md and report.json into this directory")
	c.AddCommand(newEvalCalibrateCmd(a), newEvalGateCmd(a), newEvalStreamCmd(a))
	return c
}

// calibrateOutput is what `lexsona eval calibrate --json` prints.
type calibrateOutput struct {
	Embedder    string                 `json:"embedder"`
	Model       string                 `json:"model"`
	Dataset     string                 `json:"dataset"`
	Thresholds  classifier.Thresholds  `json:"thresholds"`
	File        string                 `json:"file"`
	Written     bool                   `json:"written"`
	Calibration eval.CalibrationReport `json:"calibration"`
	Targets     eval.Targets           `json:"targets"`
}

func newEvalCalibrateCmd(a *app) *cobra.Command {
	var f evalFlags
	var targetAuto, targetConfirm float64
	var outFile string
	var dryRun bool
	c := &cobra.Command{
		Use:   "calibrate [--registry R] [--dataset D] [--target-auto 0.95] [--target-confirm 0.80] [--out-file F] [--json]",
		Short: "Choose the embedder's thresholds from labelled data and write the calibration file the classifier loads",
		Long: `Chooses, for the embedder's model identity, the lowest auto threshold whose
precision reaches --target-auto (plus the smallest margin that keeps the
target under 5-fold cross-validation inside dev) and the lowest confirm
threshold whose precision reaches --target-confirm, on the dev split of the
dataset (or by cross-validation when it has no split, or with --cv), and
reports them on the held-out items with the polarity of what would be
recorded there, the expected calibration error of the score → P(correct)
mapping (isotonic or logistic, whichever cross-validates better inside dev)
and the quality targets (met or not). It then writes the calibration file
(--out-file, default $LEXSONA_DATA/calibration/<model>.json) that the
classifier uses for that model from then on.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := parseTarget("target-auto", targetAuto); err != nil {
				return err
			}
			if err := parseTarget("target-confirm", targetConfirm); err != nil {
				return err
			}
			ctx := cmd.Context()
			reg, ds, err := a.evalInputs(ctx, f)
			if err != nil {
				return err
			}
			// Explicit bands, so that a stale or broken calibration file
			// cannot stop its own replacement.
			thr := classifier.DefaultThresholds(a.emb.Identity())
			rep, err := eval.Run(ctx, eval.Config{Registry: reg, Dataset: ds, Embedder: a.emb, Thresholds: &thr,
				TargetAuto: targetAuto, TargetConfirm: targetConfirm, CrossValidate: f.cv, Progress: a.stderr})
			if err != nil {
				return err
			}
			res := calibrateOutput{Embedder: rep.Embedder, Model: rep.Model, Dataset: rep.Dataset,
				Thresholds: rep.Calibration.Thresholds, File: outFile, Calibration: rep.Calibration, Targets: rep.Targets}
			if res.File == "" {
				res.File = filepath.Join(setup.ClassifierOptions(a.setupConfig()).CalibrationDir, classifier.CalibrationFileName(rep.Model))
			}
			if !dryRun {
				file, err := eval.CalibrationFile(rep, time.Now())
				if err != nil {
					return err
				}
				if err := classifier.WriteCalibration(res.File, file); err != nil {
					return fmt.Errorf("writing calibration file %s: %w", res.File, err)
				}
				res.Written = true
			}
			return a.output(res, func(w io.Writer) {
				fmt.Fprintf(w, "%s %s on %s\n", res.Embedder, res.Model, res.Dataset)
				eval.WriteCalibrationText(w, res.Calibration)
				eval.WriteTargetsText(w, res.Targets)
				verb := "wrote"
				if !res.Written {
					verb = "would write (--dry-run)"
				}
				fmt.Fprintf(w, "%s %s: auto %.2f, confirm %.2f\n", verb, res.File, res.Thresholds.Auto, res.Thresholds.Confirm)
			})
		},
	}
	f.register(c)
	c.Flags().Float64Var(&targetAuto, "target-auto", eval.DefaultTargetAuto, "precision the auto threshold must reach on the dev split")
	c.Flags().Float64Var(&targetConfirm, "target-confirm", eval.DefaultTargetConfirm, "precision the confirm threshold must reach on the dev split")
	c.Flags().StringVar(&outFile, "out-file", "", "calibration file to write (default $LEXSONA_DATA/calibration/<model>.json)")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "choose and report the thresholds without writing the file")
	return c
}
