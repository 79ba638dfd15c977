package eval

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/gate"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
)

// Calibration on the real corpus: the gate's threshold, the inbox budget
// and the stance model are chosen on the train repositories only (the
// gate's threshold out of fold, folds by repository); the gates refitted
// with real prompts are compared with the shipped one on the held-out
// repositories, each at the threshold and budget chosen on train.

// RealPassTargets are the shares of ordinary train prompts a gate's
// threshold may let through (out of fold) that calibration tries; the
// gate's own threshold is tried too (pass target −1).
var RealPassTargets = []float64{0.01, 0.0125, 0.015, 0.02, 0.03, 0.05, 0.08}

// RealShares are the inbox budgets (share of a session's prompts) that
// calibration tries.
var RealShares = []float64{0.02, 0.03, 0.05, 0.10}

// RealFloors are the capture floors (classifier.Options.CaptureFloor)
// calibration tries; NaN stands for none (the candidate floor, 0.30 for
// MiniLM).
var RealFloors = []float64{math.NaN(), 0.20, -1}

// RealInboxCap is the share of ordinary train prompts that may become
// suggestions at the chosen settings, among all of them and among the
// English ones alone (RealCounts.withinCap): below the 3% target, with a
// margin.
const RealInboxCap = 0.025

// RealSetting is one gate at one threshold and inbox budget, and what it
// gives on each side.
type RealSetting struct {
	Gate       string  `json:"gate"`
	Floor      float64 `json:"floor"`
	PassTarget float64 `json:"pass_target"`
	Threshold  float64 `json:"threshold"`
	Share      float64 `json:"share"`
	// InSample says the gate was fitted on the train repositories
	// themselves, so its train figures flatter it and Chosen passes it by.
	InSample   bool       `json:"in_sample"`
	Train      RealCounts `json:"train"`
	Test       RealCounts `json:"test"`
	TestReport RealReport `json:"-"`
}

// RealCounts are the target counts of one side.
type RealCounts struct {
	Ordinary      int `json:"ordinary"`
	OrdinaryInbox int `json:"ordinary_inbox"`
	Fit           int `json:"fit"`
	RightFirst    int `json:"right_first"`
	// EnglishOrdinary and EnglishOrdinaryInbox are RealRepo's, summed.
	EnglishOrdinary      int `json:"english_ordinary"`
	EnglishOrdinaryInbox int `json:"english_ordinary_inbox"`
	// Passed counts the corrections (any rule or none) the gate passed.
	Passed int `json:"corrections_passed"`
}

// withinCap says whether c's ordinary prompts, all of them and the English
// ones alone, become suggestions at most RealInboxCap of the time. The gate
// reads English far better than other languages, so those prompts pass it
// more often: a cap on the corpus's mix alone (45% not English) would let a
// team that writes in English see more suggestions than the cap.
func (c RealCounts) withinCap() bool {
	return ratio(c.OrdinaryInbox, c.Ordinary) <= RealInboxCap && ratio(c.EnglishOrdinaryInbox, c.EnglishOrdinary) <= RealInboxCap
}

// Shippable gates: those the classifier can run as they were measured.
var shippable = []string{"shipped", "written", "refit", "joint"}

// Chosen is the setting kept, chosen on the train repositories alone (the
// held-out ones only measure it): of the shippable gates at the candidate
// floor (no capture floor) whose train figures are out of sample, the one
// with the most train corrections first in the inbox with the right
// direction, then the most train corrections past the gate, then the
// fewest train ordinary suggestions, then the first in shippable's order.
func (cal RealCalibration) Chosen() RealSetting {
	var best RealSetting
	found := false
	for _, name := range shippable {
		for _, s := range cal.Settings {
			if s.Gate != name || !math.IsNaN(s.Floor) || s.InSample {
				continue
			}
			a, b := s.Train, best.Train
			if !found || a.RightFirst > b.RightFirst ||
				(a.RightFirst == b.RightFirst && a.Passed > b.Passed) ||
				(a.RightFirst == b.RightFirst && a.Passed == b.Passed && ratio(a.OrdinaryInbox, a.Ordinary) < ratio(b.OrdinaryInbox, b.Ordinary)) {
				best, found = s, true
			}
		}
	}
	return best
}

// RealCalibration is what calibration chose for each gate, and the stance
// model.
type RealCalibration struct {
	Settings []RealSetting `json:"settings"`
	// Gates are the gates compared, by name (the shipped one, and those
	// refitted with the train repositories' prompts).
	Gates map[string]gate.Model `json:"-"`
	// Stance is the learned stance model and what it reads on held-out
	// prompts.
	Stance       *classifier.StanceModel `json:"stance"`
	StanceReport StanceReport            `json:"stance_report"`
}

// gateVariant is one gate's probabilities: out of fold on train, and from
// the model fitted on all of train on test.
type gateVariant struct {
	name        string
	model       gate.Model
	train, test []float64
	inSample    bool // train holds in-sample probabilities (fittedOnTrain)
}

// fittedOnTrain says whether the shipped gate sm learned from the train
// repositories, so that its train probabilities are in-sample: it is one of
// this calibration's fits with them (refit, joint; sameFit), or its
// description says an earlier calibration fitted it with them (the corpus
// may have changed since, and the weights with it).
func fittedOnTrain(sm gate.Model, variants []gateVariant) bool {
	if strings.Contains(sm.Trained, "and of "+trainedOnTrain) {
		return true
	}
	for _, v := range variants {
		if (v.name == "refit" || v.name == "joint") && sameFit(sm, v.model) {
			return true
		}
	}
	return false
}

// trainedOnTrain names the train repositories in fitVariant's description
// of a gate fitted with them ("… and of " + trainedOnTrain + " …").
const trainedOnTrain = "the real corpus's train repositories"

// sameFit says whether a and b are one fit: the same weights, bias and
// features.
func sameFit(a, b gate.Model) bool {
	return a.Bias == b.Bias && slices.Equal(a.Weights, b.Weights) && slices.Equal(a.Cues, b.Cues) && slices.Equal(a.Extra, b.Extra)
}

// derived returns the derived figures of it, an item of rc (keyed by its
// text hash).
func (rc *RealCorpus) derived(it StreamItem) (DerivedPrompt, error) { return rc.Derived[it.Text], nil }

// realJudged is what calibration and the learning curve start from: the
// real corpus's train and held-out prompts judged from their derived
// figures, and the written stream's dev prompts judged from their texts,
// by one scratch classifier over the pack (rp's).
type realJudged struct {
	rp                      *replayer
	train, test             []StreamItem
	jTrain, jTest, jWritten []judged
}

// judgeReal checks rc against emb and regYAML and judges its prompts and
// written (realJudged); done releases the scratch classifier. Errors:
// Check's, the store's, the classifier's.
func judgeReal(ctx context.Context, emb models.Embedder, reg *registry.Registry, regYAML []byte, rc *RealCorpus, written []StreamItem) (j realJudged, done func(), err error) {
	if err := rc.Check(emb, regYAML); err != nil {
		return j, nil, err
	}
	clf, done, err := scratchClassifier(ctx, emb, reg, classifier.Options{})
	if err != nil {
		return j, nil, err
	}
	j.rp = newReplayer(clf, engine.DefaultConfig())
	j.train, j.test = rc.items(RealTrain), rc.items(RealTest)
	if j.jTrain, err = j.rp.judge(ctx, j.train, rc.derived); err == nil {
		if j.jTest, err = j.rp.judge(ctx, j.test, rc.derived); err == nil {
			j.jWritten, err = j.rp.judge(ctx, written, func(it StreamItem) (DerivedPrompt, error) { return derive(ctx, clf, it.ID, it.Text) })
		}
	}
	if err != nil {
		done()
		return j, nil, err
	}
	return j, done, nil
}

// CalibrateReal chooses, on the train repositories of rc, each gate's
// threshold and inbox budget, fits the stance model, and measures each
// setting on the held-out repositories. written are the written stream's
// dev prompts (with their texts), which the refitted gates and the stance
// model also learn from. Errors: Check's, the store's, the classifier's.
func CalibrateReal(ctx context.Context, emb models.Embedder, reg *registry.Registry, regYAML []byte, rc *RealCorpus, written []StreamItem, progress io.Writer) (RealCalibration, error) {
	var cal RealCalibration
	j, done, err := judgeReal(ctx, emb, reg, regYAML, rc, written)
	if err != nil {
		return cal, err
	}
	defer done()
	rp, train, test, jTrain, jTest, jWritten := j.rp, j.train, j.test, j.jTrain, j.jTest, j.jWritten
	if progress != nil {
		fmt.Fprintf(progress, "calibration: %d train, %d held-out, %d written prompts judged\n", len(train), len(test), len(written))
	}
	shipped, err := gate.Default()
	if err != nil {
		return cal, err
	}
	sm := shipped.For(emb.Identity().ID(), len(jTrain[0].vec))
	if sm == nil {
		return cal, fmt.Errorf("no shipped gate for %s", emb.Identity().ID())
	}
	variants := []gateVariant{{name: "shipped", model: *sm, train: probs(jTrain, sm), test: probs(jTest, sm)},
		{name: "clauses", model: *sm, train: clauseProbs(jTrain, sm), test: clauseProbs(jTest, sm)}}
	modelID, dims := emb.Identity().ID(), sm.Dims
	for _, v := range []struct {
		name  string
		extra []string
		real  bool
	}{{"written", nil, false}, {"refit", nil, true}, {"joint", gate.Extras, true}} {
		tr, jt := train, jTrain
		if !v.real {
			tr, jt = nil, nil
		}
		fv := fitVariant(v.name, modelID, dims, v.extra, tr, jt, written, jWritten, jTest)
		if !v.real {
			fv.train = probs(jTrain, &fv.model)
		}
		variants = append(variants, fv)
	}
	if fittedOnTrain(*sm, variants) {
		variants[0].inSample, variants[1].inSample = true, true
	}
	cal.Gates = map[string]gate.Model{}
	for _, floor := range RealFloors {
		ft, fs := jTrain, jTest
		if !math.IsNaN(floor) {
			fc, fdone, err := scratchClassifier(ctx, emb, reg, classifier.Options{CaptureFloor: &floor})
			if err != nil {
				return cal, err
			}
			fr := newReplayer(fc, engine.DefaultConfig())
			ft, err = fr.judge(ctx, train, rc.derived)
			if err == nil {
				fs, err = fr.judge(ctx, test, rc.derived)
			}
			fdone()
			if err != nil {
				return cal, err
			}
		}
		for _, v := range variants {
			s := chooseSetting(rp, v, train, ft, rc.Derived)
			s.Floor, s.InSample = floor, v.inSample
			s.Test, s.TestReport = measure(rp, RealTest, test, fs, v.test, s.Threshold, s.Share, rc.Derived)
			cal.Settings = append(cal.Settings, s)
			if math.IsNaN(floor) {
				cal.Gates[v.name] = withThreshold(v.model, s.Threshold)
			}
		}
	}
	cal.Stance, cal.StanceReport = fitStance(train, jTrain, written, jWritten, test, jTest)
	return cal, nil
}

// withThreshold is m at threshold t, chosen on the train repositories.
func withThreshold(m gate.Model, t float64) gate.Model {
	m.Threshold = t
	const how = "; its threshold chosen on the real corpus's train repositories (eval.CalibrateReal)"
	if !strings.HasSuffix(m.Trained, how) {
		m.Trained += how
	}
	return m
}

// probs are the judged prompts' gate probabilities: the classifier's (m
// nil) or model m's.
func probs(js []judged, m *gate.Model) []float64 {
	out := make([]float64, len(js))
	for i, j := range js {
		switch {
		case j.route != RouteProse:
			out[i] = -1
		case m == nil:
			out[i] = j.prob
		default:
			out[i] = m.ProbJoint(j.vec, j.cues, j.extras)
		}
	}
	return out
}

// example is judged prompt j as a gate example labelled by it.
func example(it StreamItem, j judged, extra []string) gate.Example {
	e := gate.Example{Vec: j.vec, Cues: j.cues, Label: it.IsCorrection()}
	for _, x := range extra {
		e.Extra = append(e.Extra, j.extras[x])
	}
	return e
}

// fitVariant fits a gate on the written prompts and the train prompts
// (GateFolds models with one fold of train repositories held out give the
// train probabilities; the model on all gives the held-out ones).
func fitVariant(name, modelID string, dims int, extra []string, train []StreamItem, jTrain []judged, written []StreamItem, jWritten []judged, jTest []judged) gateVariant {
	opts := gate.DefaultTrainOptions(modelID, dims)
	opts.Extra = extra
	var base []gate.Example
	for i, it := range written {
		if jWritten[i].route == RouteProse {
			base = append(base, example(it, jWritten[i], extra))
		}
	}
	v := gateVariant{name: name, train: make([]float64, len(train))}
	for f := 0; f < GateFolds && len(train) > 0; f++ {
		ex := append([]gate.Example(nil), base...)
		for i, it := range train {
			if jTrain[i].route == RouteProse && sessionFold(it.Writer) != f {
				ex = append(ex, example(it, jTrain[i], extra))
			}
		}
		m := gate.Train(ex, opts)
		for i, it := range train {
			if sessionFold(it.Writer) == f {
				v.train[i] = probs(jTrain[i:i+1], &m)[0]
			}
		}
	}
	all := append([]gate.Example(nil), base...)
	for i, it := range train {
		if jTrain[i].route == RouteProse {
			all = append(all, example(it, jTrain[i], extra))
		}
	}
	v.model = gate.Train(all, opts)
	v.model.Trained = fmt.Sprintf("the prose of the written stream's dev split (%d prompts), as the hook reads it (eval.CalibrateReal)", len(base))
	if n := len(all) - len(base); n > 0 {
		v.model.Trained = fmt.Sprintf("the prose of the written stream's dev split (%d prompts) and of %s (%d prompts), as the hook reads it (eval.CalibrateReal)", len(base), trainedOnTrain, n)
	}
	v.test = probs(jTest, &v.model)
	return v
}

// chooseSetting picks, on train, the pass target and inbox share that put
// the most corrections that fit a rule first in the inbox with the right
// direction while at most RealInboxCap of ordinary prompts become
// suggestions, English ones included (RealCounts.withinCap; derived says
// which are English). Ties, frequent with a few dozen train corrections,
// go to the lower threshold and then the larger share: the inbox the cap
// allows is spent on passing corrections, not left unused.
func chooseSetting(rp *replayer, v gateVariant, train []StreamItem, jTrain []judged, derived map[string]DerivedPrompt) RealSetting {
	var best RealSetting
	found := false
	for _, pt := range append(slices.Clone(RealPassTargets), -1) {
		thr := v.model.Threshold // -1: the gate's own threshold
		if pt >= 0 {
			thr = thresholdFor(train, v.train, pt)
		}
		for _, share := range RealShares {
			c, _ := measure(rp, RealTrain, train, jTrain, v.train, thr, share, derived)
			if !c.withinCap() {
				continue
			}
			s := RealSetting{Gate: v.name, PassTarget: pt, Threshold: thr, Share: share, Train: c}
			if !found || c.RightFirst > best.Train.RightFirst ||
				(c.RightFirst == best.Train.RightFirst && (thr < best.Threshold || thr == best.Threshold && share > best.Share)) {
				best, found = s, true
			}
		}
	}
	return best
}

// thresholdFor is the lowest probability at which at most share of the
// ordinary items judged (p ≥ 0) pass.
func thresholdFor(items []StreamItem, p []float64, share float64) float64 {
	var its []StreamItem
	var ps []float64
	for i, it := range items {
		if p[i] >= 0 {
			its, ps = append(its, it), append(ps, p[i])
		}
	}
	return chooseGateThreshold(its, ps, share)
}

// measure admits js with probabilities p at threshold thr and inbox share
// share, and counts the result.
func measure(rp *replayer, side string, items []StreamItem, js []judged, p []float64, thr, share float64, derived map[string]DerivedPrompt) (RealCounts, RealReport) {
	moved := make([]judged, len(js))
	for i, j := range js {
		j.prob = p[i]
		j.passed = j.route == RouteProse && p[i] >= thr
		moved[i] = j
	}
	keep := rp.share
	rp.share = share
	caps := rp.admit(items, moved)
	rp.share = keep
	rep := realReport(side, items, caps, derived)
	var c RealCounts
	for _, r := range rep.Repos {
		c.Ordinary, c.OrdinaryInbox, c.Fit, c.RightFirst = c.Ordinary+r.Ordinary, c.OrdinaryInbox+r.OrdinaryInbox, c.Fit+r.Fit, c.RightFirst+r.RightFirst
		c.EnglishOrdinary, c.EnglishOrdinaryInbox = c.EnglishOrdinary+r.EnglishOrdinary, c.EnglishOrdinaryInbox+r.EnglishOrdinaryInbox
	}
	for i, it := range items {
		if it.IsCorrection() && moved[i].passed {
			c.Passed++
		}
	}
	return c, rep
}

// WriteRealCalibrationText prints what calibration chose for each gate, what
// it gives on train and held out, and the stance model's readings.
func WriteRealCalibrationText(w io.Writer, cal RealCalibration) {
	fmt.Fprintf(w, "Chosen on the train repositories (ordinary suggestions ≤ %.1f%%, of all and of English prompts), measured on the held-out ones:\n", 100*RealInboxCap)
	fmt.Fprintf(w, "  %-8s %5s %6s %9s %6s  %-41s %-37s\n", "gate", "floor", "pass", "threshold", "share", "train: ordinary inbox (English), right, passed", "held out: ordinary inbox (English), right")
	for _, s := range cal.Settings {
		pass := fmt.Sprintf("%5.2g%%", 100*s.PassTarget)
		if s.PassTarget < 0 {
			pass = "   own"
		}
		name := s.Gate
		if s.InSample {
			name += "*"
		}
		fmt.Fprintf(w, "  %-8s %5.2f %s %9.3f %5.0f%%  %3d/%-4d %5.2f%% (%5.2f%%)  %2d/%-2d %5.1f%% %3d  %3d/%-4d %5.2f%% (%5.2f%%)  %2d/%-2d %5.1f%%\n",
			name, s.Floor, pass, s.Threshold, 100*s.Share,
			s.Train.OrdinaryInbox, s.Train.Ordinary, 100*ratio(s.Train.OrdinaryInbox, s.Train.Ordinary), 100*ratio(s.Train.EnglishOrdinaryInbox, s.Train.EnglishOrdinary), s.Train.RightFirst, s.Train.Fit, 100*ratio(s.Train.RightFirst, s.Train.Fit), s.Train.Passed,
			s.Test.OrdinaryInbox, s.Test.Ordinary, 100*ratio(s.Test.OrdinaryInbox, s.Test.Ordinary), 100*ratio(s.Test.EnglishOrdinaryInbox, s.Test.EnglishOrdinary), s.Test.RightFirst, s.Test.Fit, 100*ratio(s.Test.RightFirst, s.Test.Fit))
	}
	for _, s := range cal.Settings {
		if s.InSample {
			fmt.Fprintf(w, "  * fitted with the train repositories (written by an earlier calibration): its train figures are in-sample, so it is not chosen\n")
			break
		}
	}
	r := cal.StanceReport
	fmt.Fprintf(w, "Stance (%d labelled prompts with their rule first learned from):\n", r.Learned)
	for _, c := range []struct {
		name string
		c    StanceCounts
	}{{"held out", r.HeldOut}, {"cross-validated", r.CrossVal}} {
		fmt.Fprintf(w, "  %-16s %3d prompts (%d contradictions): rule-based right %d, model right %d; they disagree on %d, the model right on %d of them\n",
			c.name, c.c.Prompts, c.c.Contradictions, c.c.RuleRight, c.c.ModelRight, c.c.Disagree, c.c.DisagreeModelRight)
	}
}

// clauseProbs are model m's probabilities, each the best of the whole
// text's and its clauses' (each clause's vector with the text's cues).
func clauseProbs(js []judged, m *gate.Model) []float64 {
	out := probs(js, m)
	for i, j := range js {
		for _, v := range j.clauseVecs {
			out[i] = max(out[i], m.ProbJoint(v, j.cues, j.extras))
		}
	}
	return out
}
