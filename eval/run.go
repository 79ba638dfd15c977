package eval

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
)

// Config is what Run evaluates.
type Config struct {
	// Registry is the rule registry (nil: the default pack).
	Registry *registry.Registry
	// Dataset is the labelled corrections, validated against Registry.
	Dataset *Dataset
	// Embedder embeds the registry and the corrections. A models.Fitter (the
	// lexical embedder) is fitted on the registry's texts first, as the
	// service does; the caller keeps ownership (Run does not close it).
	Embedder models.Embedder
	// Thresholds, when set, are the bands evaluated; otherwise those the
	// classifier would use for the model: a calibration file in
	// CalibrationDir (none when empty), else classifier.DefaultThresholds.
	Thresholds     *classifier.Thresholds
	CalibrationDir string
	// Guard is the classifier's guard (nil: classifier.DefaultGuard()); the
	// report also shows every result with the guard off.
	Guard *classifier.Guard
	// TargetAuto and TargetConfirm are the precisions calibration aims for
	// (0: DefaultTargetAuto, DefaultTargetConfirm).
	TargetAuto, TargetConfirm float64
	// CrossValidate makes calibration use cross-validation even when the
	// dataset has a dev/test split.
	CrossValidate bool
	// Progress gets progress bars (embedding, classifying) when it is a terminal.
	Progress io.Writer
	// TempDir is where the throw-away store is created ("" = os.TempDir()).
	TempDir string
	// Cold skips the warm run (Report.Warm): the items classified again
	// with other labelled items fed to the classifier as learned exemplars.
	Cold bool
}

// Run evaluates cfg: it creates a store in a temporary directory (never the
// user's database), fits the embedder when it is a models.Fitter, embeds the
// registry with memory.Precompute (the service's precompute job), classifies every
// item with the classifier and builds the Report; unless cfg.Cold, it
// classifies every item again with other items as learned exemplars
// (Report.Warm, see WarmReport).
//
// Errors: EINVALID for a missing dataset or embedder, a dataset naming a rule
// the registry lacks, bad thresholds or a bad calibration file; the store's,
// memory.Precompute's and the classifier's errors otherwise (an item's
// classification error names the item); EUNAVAILABLE when ctx is cancelled.
func Run(ctx context.Context, cfg Config) (Report, error) {
	reg := cfg.Registry
	if reg == nil {
		reg = registry.Default()
	}
	if cfg.Dataset == nil || len(cfg.Dataset.Items) == 0 {
		return Report{}, engine.Errorf(engine.EINVALID, "eval needs a dataset with at least one item")
	}
	if cfg.Embedder == nil {
		return Report{}, engine.Errorf(engine.EINVALID, "eval needs an embedder")
	}
	cats := categories(reg)
	for _, it := range cfg.Dataset.Items {
		for _, id := range append([]string{it.Expected}, it.Acceptable...) {
			if _, ok := cats[id]; id != "" && !ok {
				return Report{}, engine.Errorf(engine.EINVALID, "dataset %s line %d: rule %q is not in registry %s", cfg.Dataset.Name, it.Line, id, reg.Name())
			}
		}
	}
	guard := classifier.DefaultGuard()
	if cfg.Guard != nil {
		guard = *cfg.Guard
	}
	emb := cfg.Embedder
	if _, ok := emb.(*models.Cached); !ok {
		emb = models.NewCached(emb, 4*len(cfg.Dataset.Items)+64) // each text is classified up to eight times
	}

	dir, err := os.MkdirTemp(cfg.TempDir, "lexsona-eval-*")
	if err != nil {
		return Report{}, fmt.Errorf("creating the eval's temporary store: %w", err)
	}
	defer os.RemoveAll(dir)
	mem, err := memory.Open(ctx, filepath.Join(dir, "eval.db"), emb, memory.Options{})
	if err != nil {
		return Report{}, err
	}
	defer mem.Close()
	if f, ok := emb.(models.Fitter); ok {
		f.Fit(reg.Texts())
	}
	progress, endProgress := models.TermProgress(cfg.Progress)
	_, err = mem.Precompute(ctx, reg, memory.SyncOptions{Progress: progress})
	endProgress()
	if err != nil {
		return Report{}, err
	}

	thr, source, err := classifier.New(mem.Corpus(), emb, classifier.Options{Thresholds: cfg.Thresholds, CalibrationDir: cfg.CalibrationDir}).Thresholds()
	if err != nil {
		return Report{}, err
	}
	scored, err := classifyAll(ctx, mem.Corpus(), emb, reg.Len(), thr, guard, nil, cfg.Dataset.Items, cfg.Progress)
	if err != nil {
		return Report{}, err
	}
	id := emb.Identity()
	// The paper's table and ablation use the paper's method: dense cosine
	// alone (same guard). When the product's score is already that, the
	// items are scored once.
	dense, productScoring := scored, ScoringDense
	if w := classifier.DefaultTermWeight(id); w > 0 {
		productScoring = fmt.Sprintf("hybrid: %.2g·embedding cosine + %.2g·rule-vocabulary score", 1-w, w)
		if dense, err = classifyAll(ctx, mem.Corpus(), emb, reg.Len(), thr, guard, classifier.DenseOnly(), cfg.Dataset.Items, cfg.Progress); err != nil {
			return Report{}, err
		}
	}
	rep := build(meta{
		embedder: emb.Backend(), model: id.ID(), registry: reg.Name(), dataset: cfg.Dataset.Name,
		thresholds: thr, source: source, guard: guard,
		targetAuto: cfg.TargetAuto, targetConfirm: cfg.TargetConfirm, crossValidate: cfg.CrossValidate, templates: templates(reg),
		scoring: productScoring, dense: dense,
	}, scored, cats)
	if !cfg.Cold {
		warm, n, err := classifyWarm(ctx, mem.Corpus(), emb, reg.Len(), thr, guard, cfg.Dataset.Items, cfg.Progress)
		if err != nil {
			return Report{}, err
		}
		rep.Warm = warmReport(meta{thresholds: thr, guard: guard, targetAuto: cfg.TargetAuto, targetConfirm: cfg.TargetConfirm,
			crossValidate: cfg.CrossValidate, scoring: productScoring, templates: templates(reg)}, warm, cats, n, cfg.Dataset.HasSplits())
	}
	return rep, nil
}

// categories maps every rule id of reg to its category.
func categories(reg *registry.Registry) map[string]string {
	m := map[string]string{}
	for _, d := range reg.Definitions() {
		m[d.Rule.RuleID] = d.Rule.Category
	}
	return m
}

// templates maps every rule id of reg to its template.
func templates(reg *registry.Registry) map[string]string {
	m := map[string]string{}
	for _, d := range reg.Definitions() {
		m[d.Rule.RuleID] = d.Rule.Text
	}
	return m
}

// keptCandidates is how many of an item's best rules the report lists.
const keptCandidates = 5

// classifyAll classifies every item four times with the classifier: with
// thresholds 0/0 and every rule as a candidate, guard on (every rule's score,
// and whether the text is kept from auto-matching, or from confirm, at any
// threshold) and guard off (the polarity found for the top rule, and whether
// the text is kept from auto-matching for another reason than the guard);
// then at thr with the guard on and with it off (the service's decisions).
// termWeight is the classifier's Options.TermWeight (nil: the model's
// default; classifier.DenseOnly(): the paper's dense cosine).
func classifyAll(ctx context.Context, corpus classifier.Corpus, emb models.Embedder, rules int, thr classifier.Thresholds, guard classifier.Guard, termWeight *float64, items []Item, progress io.Writer) ([]Scored, error) {
	zero := classifier.Thresholds{}
	everything := classifier.New(corpus, emb, classifier.Options{Thresholds: &zero, K: rules, MinScore: -1, Guard: &guard, TermWeight: termWeight})
	everythingOff := classifier.New(corpus, emb, classifier.Options{Thresholds: &zero, K: rules, MinScore: -1, Guard: &classifier.Guard{}, TermWeight: termWeight})
	on := classifier.New(corpus, emb, classifier.Options{Thresholds: &thr, Guard: &guard, TermWeight: termWeight})
	off := classifier.New(corpus, emb, classifier.Options{Thresholds: &thr, Guard: &classifier.Guard{}, TermWeight: termWeight})
	label := "classifying corrections"
	if termWeight != nil && *termWeight == 0 {
		label = "classifying corrections (dense only)"
	}
	p, endProgress := models.TermProgress(progress)
	defer endProgress()
	bar := models.Count(p, label, len(items))
	out := make([]Scored, 0, len(items))
	for _, it := range items {
		all, err := everything.Classify(ctx, it.Text, engine.Scope{})
		if err != nil {
			return nil, fmt.Errorf("classifying item %s (line %d): %w", it.ID, it.Line, err)
		}
		allOff, err := everythingOff.Classify(ctx, it.Text, engine.Scope{})
		if err != nil {
			return nil, fmt.Errorf("classifying item %s (line %d): %w", it.ID, it.Line, err)
		}
		withGuard, err := on.Classify(ctx, it.Text, engine.Scope{})
		if err != nil {
			return nil, fmt.Errorf("classifying item %s (line %d): %w", it.ID, it.Line, err)
		}
		noGuard, err := off.Classify(ctx, it.Text, engine.Scope{})
		if err != nil {
			return nil, fmt.Errorf("classifying item %s (line %d): %w", it.ID, it.Line, err)
		}
		s := Scored{Item: it, Polarity: resultPolarity(allOff), Decision: withGuard.Decision,
			DecisionPolarity: resultPolarity(withGuard), DecisionGuardOff: noGuard.Decision}
		if all.Decision != classifier.DecisionAutoMatch && all.Reason != "" {
			s.Blocked, s.BlockReason = true, all.Reason
			s.NoConfirm = all.Decision == classifier.DecisionNewRule
		}
		s.HeldBack = allOff.Decision != classifier.DecisionAutoMatch && allOff.Reason != ""
		for i, c := range all.Candidates {
			c.Score = classifier.RoundScore(c.Score)
			if i == 0 {
				s.Top, s.Score = c.RuleID, c.Score
			}
			if s.ExpectedRank == 0 && it.Accepts(c.RuleID) {
				s.ExpectedRank, s.ExpectedScore = i+1, c.Score
			}
			if i < keptCandidates {
				s.Candidates = append(s.Candidates, c)
			}
		}
		out = append(out, s)
		bar.Add(1)
	}
	return out, nil
}
