package eval

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
)

// A learning curve on the real corpus: how the held-out figures move with
// the amount of labelled train data. Each point refits the "refit" gate
// of CalibrateReal (the written stream's dev prose and the prose of a
// subsample of the train repositories), chooses its threshold and inbox
// share on that subsample alone (chooseSetting), and measures it on the
// fixed held-out repositories, on all of them and on their English
// prompts only (DerivedPrompt.English ≥ NotEnglish). An analysis only:
// nothing shipped is changed.

// RealCurveFractions are the shares of the train repositories a point
// learns from.
var RealCurveFractions = []float64{0.25, 0.5, 0.75, 1}

// RealCurvePass is the share of held-out ordinary prose the ranking
// figure (Recall) lets through.
const RealCurvePass = 0.03

// RealCurvePoint is one subsample's figures.
type RealCurvePoint struct {
	Fraction float64
	Seed     int
	// Repos are the train repositories learned from; Fit the train
	// corrections among them that fit a rule, Corrections all of them.
	Repos, Fit, Corrections int
	Threshold, Share        float64
	// All and English are the held-out figures.
	All, English RealCurveFigures
}

// RealCurveFigures are one population's held-out figures: at the setting
// chosen on train (Counts; Passed is how many corrections that fit a rule
// the gate passed), and the gate's ranking of the prose alone (AUC of
// corrections that fit a rule against ordinary prompts; Recall, the share
// of those corrections at or above the threshold that passes
// RealCurvePass of the population's ordinary prose; Prose is how many
// corrections that fit a rule the gate reads at all).
type RealCurveFigures struct {
	Counts        RealCounts
	Passed, Prose int
	AUC, Recall   float64
}

// RealLearningCurve measures, for each of fractions and seeds seeds (one
// for a fraction of 1), the refitted gate learned from that share of the
// train repositories, drawn by repository with a fixed seed. written are
// the written stream's dev prompts. Errors: Check's, the store's, the
// classifier's.
func RealLearningCurve(ctx context.Context, emb models.Embedder, reg *registry.Registry, regYAML []byte, rc *RealCorpus, written []StreamItem, fractions []float64, seeds int, progress io.Writer) ([]RealCurvePoint, error) {
	j, done, err := judgeReal(ctx, emb, reg, regYAML, rc, written)
	if err != nil {
		return nil, err
	}
	defer done()
	rp, train, test, jTrain, jTest, jWritten := j.rp, j.train, j.test, j.jTrain, j.jTest, j.jWritten
	modelID := emb.Identity().ID()
	dims := len(jTrain[0].vec)
	english := make([]bool, len(test))
	for i, it := range test {
		english[i] = rc.Derived[it.Text].English >= NotEnglish
	}
	all := repos(train)
	slices.Sort(all)
	var out []RealCurvePoint
	for fi, f := range fractions {
		for seed := 0; seed < seeds && (seed == 0 || f < 1); seed++ {
			pick := slices.Clone(all)
			rand.New(rand.NewPCG(uint64(seed), uint64(fi))).Shuffle(len(pick), func(a, b int) { pick[a], pick[b] = pick[b], pick[a] })
			pick = pick[:max(1, int(math.Round(f*float64(len(pick)))))]
			var sub []StreamItem
			var jSub []judged
			pt := RealCurvePoint{Fraction: f, Seed: seed, Repos: len(pick)}
			for i, it := range train {
				if slices.Contains(pick, it.Writer) {
					sub, jSub = append(sub, it), append(jSub, jTrain[i])
					if it.IsCorrection() {
						pt.Corrections++
					}
					if it.RuleID() != "" {
						pt.Fit++
					}
				}
			}
			v := fitVariant("refit", modelID, dims, nil, sub, jSub, written, jWritten, jTest)
			s := chooseSetting(rp, v, sub, jSub, rc.Derived)
			pt.Threshold, pt.Share = s.Threshold, s.Share
			pt.All, pt.English = curveFigures(rp, test, jTest, v.test, s, english)
			out = append(out, pt)
			if progress != nil {
				fmt.Fprintf(progress, "curve: %.0f%% seed %d: %d repos, %d fit; held out right %d/%d\n", 100*f, seed, pt.Repos, pt.Fit, pt.All.Counts.RightFirst, pt.All.Counts.Fit)
			}
		}
	}
	return out, nil
}

// curveFigures admits the held-out prompts with probabilities p at setting
// s and counts them, all and the English ones (english) alone.
func curveFigures(rp *replayer, items []StreamItem, js []judged, p []float64, s RealSetting, english []bool) (all, eng RealCurveFigures) {
	moved := make([]judged, len(js))
	for i, j := range js {
		j.prob, j.passed = p[i], j.route == RouteProse && p[i] >= s.Threshold
		moved[i] = j
	}
	keep := rp.share
	rp.share = s.Share
	caps := rp.admit(items, moved)
	rp.share = keep
	figures := func(in func(int) bool) RealCurveFigures {
		var f RealCurveFigures
		var its []StreamItem
		var cs []captured
		var ord, fit []float64
		for i, it := range items {
			if !in(i) {
				continue
			}
			its, cs = append(its, it), append(cs, caps[i])
			if it.RuleID() != "" && caps[i].passed {
				f.Passed++
			}
			switch {
			case js[i].route != RouteProse:
			case caseOf(it) == CaseOrdinary:
				ord = append(ord, p[i])
			case it.RuleID() != "":
				fit = append(fit, p[i])
				f.Prose++
			}
		}
		for _, r := range realReport(RealTest, its, cs, nil).Repos {
			f.Counts.Ordinary += r.Ordinary
			f.Counts.OrdinaryInbox += r.OrdinaryInbox
			f.Counts.Fit += r.Fit
			f.Counts.RightFirst += r.RightFirst
		}
		f.AUC, f.Recall = rankFigures(ord, fit)
		return f
	}
	return figures(func(int) bool { return true }), figures(func(i int) bool { return english[i] })
}

// rankFigures are the AUC of pos against neg (ties count half) and the
// share of pos at or above the lowest threshold that passes at most
// RealCurvePass of neg.
func rankFigures(neg, pos []float64) (auc, recall float64) {
	if len(neg) == 0 || len(pos) == 0 {
		return math.NaN(), math.NaN()
	}
	var wins float64
	for _, q := range pos {
		for _, n := range neg {
			switch {
			case q > n:
				wins++
			case q == n:
				wins += 0.5
			}
		}
	}
	sorted := slices.Clone(neg)
	sort.Sort(sort.Reverse(sort.Float64Slice(sorted)))
	thr := math.Inf(-1)
	if k := int(RealCurvePass * float64(len(sorted))); k < len(sorted) {
		thr = math.Nextafter(sorted[k], math.Inf(1))
	}
	hit := 0
	for _, q := range pos {
		if q >= thr {
			hit++
		}
	}
	return wins / float64(len(pos)*len(neg)), float64(hit) / float64(len(pos))
}

// LogFit is the least-squares line y = A + B·ln(x) and B's standard
// error.
type LogFit struct{ A, B, SE float64 }

// fitLog fits y against ln(x) (x > 0).
func fitLog(x, y []float64) LogFit {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx, my = mx+math.Log(x[i])/n, my+y[i]/n
	}
	var sxx, sxy, sse float64
	for i := range x {
		d := math.Log(x[i]) - mx
		sxx, sxy = sxx+d*d, sxy+d*(y[i]-my)
	}
	f := LogFit{B: sxy / sxx}
	f.A = my - f.B*mx
	for i := range x {
		r := y[i] - f.A - f.B*math.Log(x[i])
		sse += r * r
	}
	f.SE = math.Sqrt(sse / (n - 2) / sxx)
	return f
}

// At is the x at which the line reaches y (NaN unless it rises).
func (f LogFit) At(y float64) float64 {
	if f.B <= 0 {
		return math.NaN()
	}
	return math.Exp((y - f.A) / f.B)
}

// WriteRealCurveText prints each point, and the log-linear fits of the
// held-out figures against the train corrections that fit a rule.
func WriteRealCurveText(w io.Writer, pts []RealCurvePoint) {
	fmt.Fprintf(w, "Learning curve: the refit gate from a share of the train repositories, chosen on it, measured on the held-out ones (recall at %.0f%% of ordinary prose passing)\n", 100*RealCurvePass)
	if len(pts) > 0 {
		a, e := pts[0].All, pts[0].English
		fmt.Fprintf(w, "  held out: %d corrections fit a rule, %d of them read by the gate; English: %d, %d\n", a.Counts.Fit, a.Prose, e.Counts.Fit, e.Prose)
	}
	fmt.Fprintf(w, "  %5s %4s %5s %4s %5s %5s %5s | %-41s | %-41s\n", "share", "seed", "repos", "fit", "corr", "thr", "inbox", "held out: ord inbox, right, AUC, recall", "English held out: same")
	var x []float64
	ys := make([][]float64, 6)
	for _, p := range pts {
		fmt.Fprintf(w, "  %4.0f%% %4d %5d %4d %5d %5.3f %4.0f%% |", 100*p.Fraction, p.Seed, p.Repos, p.Fit, p.Corrections, p.Threshold, 100*p.Share)
		for _, f := range []RealCurveFigures{p.All, p.English} {
			c := f.Counts
			fmt.Fprintf(w, " %5.2f%% %2d/%-2d %5.1f%% %.3f %5.1f%% %2d passed |", 100*ratio(c.OrdinaryInbox, c.Ordinary), c.RightFirst, c.Fit, 100*ratio(c.RightFirst, c.Fit), f.AUC, 100*f.Recall, f.Passed)
		}
		fmt.Fprintln(w)
		x = append(x, float64(p.Fit))
		for k, v := range []float64{ratio(p.All.Counts.RightFirst, p.All.Counts.Fit), p.All.Recall, p.All.AUC,
			ratio(p.English.Counts.RightFirst, p.English.Counts.Fit), p.English.Recall, p.English.AUC} {
			ys[k] = append(ys[k], v)
		}
	}
	if len(x) < 3 {
		return
	}
	fmt.Fprintf(w, "Log-linear fits, y = A + B·ln(train corrections that fit a rule), over the %d points:\n", len(x))
	for k, name := range []string{"right first", "recall", "AUC", "English right first", "English recall", "English AUC"} {
		f := fitLog(x, ys[k])
		fmt.Fprintf(w, "  %-20s A %7.3f  B %7.4f ± %.4f", name, f.A, f.B, f.SE)
		if k%3 == 0 {
			fmt.Fprintf(w, "  reaches 15%% at %.0f (if B > 2 SE: %v)", f.At(0.15), f.B > 2*f.SE)
		}
		fmt.Fprintln(w)
	}
}
