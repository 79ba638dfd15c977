package eval

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// categoryOrder lists the categories of by: the paper's four first, in its
// order, then any others alphabetically.
func categoryOrder(by map[string]Metrics) []string {
	var out, rest []string
	for _, row := range Paper.Rows {
		if _, ok := by[row.Category]; ok {
			out = append(out, row.Category)
		}
	}
	for c := range by {
		if !slices.Contains(out, c) {
			rest = append(rest, c)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// paperRow returns the paper's row for category ("overall" included).
func paperRow(category string) (PaperRow, bool) {
	i := slices.IndexFunc(Paper.Rows, func(r PaperRow) bool { return r.Category == category })
	if i < 0 {
		return PaperRow{}, false
	}
	return Paper.Rows[i], true
}

func prf(m Metrics) string { return fmt.Sprintf("%.2f\t%.2f\t%.2f", m.Precision, m.Recall, m.F1) }

func counts(m Metrics) string {
	if m.RecallTP != m.TP {
		return fmt.Sprintf("%d/%d\t%d\t%d", m.TP, m.RecallTP, m.FP, m.FN)
	}
	return fmt.Sprintf("%d\t%d\t%d", m.TP, m.FP, m.FN)
}

// WriteText prints r for people: the Appendix B table (guard on and off, next
// to the paper's claimed numbers), the bands, the ablation, the calibration,
// the phrasing statistics and the worst errors.
func WriteText(w io.Writer, r Report) {
	fmt.Fprintf(w, "LexSona eval: %s %s, registry %s, dataset %s (%s)\n", r.Embedder, r.Model, r.Registry, r.Dataset, kindCounts(r.Counts))
	fmt.Fprintf(w, "thresholds: auto %.2f, confirm %.2f (%s); guard: %d content word(s), margin %.2f, neighbour margin %.2f; scoring: %s (the paper's tables: %s alone)\n\n",
		r.Thresholds.Auto, r.Thresholds.Confirm, r.ThresholdsSource, r.Guard.MinContentWords, r.Guard.AutoMargin, r.Guard.NeighbourMargin, r.Scoring, ScoringDense)
	WriteTargetsText(w, r.Targets)
	fmt.Fprintln(w)
	writeWarmText(w, r)

	fmt.Fprintln(w, paperTableCaption(r))
	paperTable(r).text(w)
	fmt.Fprintln(w)

	fmt.Fprintf(w, "Appendix B table of the product (%s) at the evaluated auto threshold %.2f, all items of the paper's kinds, dev and test (per category: precision by predicted rule, recall by expected rule; TP a/b = precision-side/recall-side)\n", r.Scoring, r.Thresholds.Auto)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "category\tP\tR\tF1\tTP\tFP\tFN\t| guard off P\tR\tF1\t| paper P\tR\tF1")
	for _, c := range append(categoryOrder(r.ByCategory), "overall") {
		on, off := r.Overall, r.GuardOff.Overall
		if c != "overall" {
			on, off = r.ByCategory[c], r.GuardOff.ByCategory[c]
		}
		paper := "-\t-\t-"
		if p, ok := paperRow(c); ok {
			paper = fmt.Sprintf("%.2f\t%.2f\t%.2f", p.Precision, p.Recall, p.F1)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t| %s\t| %s\n", c, prf(on), counts(on), prf(off), paper)
	}
	tw.Flush()
	fmt.Fprintf(w, "(paper: %s, threshold %.2f)\n\n", Paper.Source, Paper.Threshold)

	fmt.Fprintf(w, "Bands at auto %.2f / confirm %.2f: guard on (guard off)\n", r.Thresholds.Auto, r.Thresholds.Confirm)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "kind\titems\tauto\tauto correct\tconfirm\tconfirm top acceptable\tnew")
	for _, k := range Kinds {
		on, off := r.Bands[k], r.GuardOff.Bands[k]
		fmt.Fprintf(tw, "%s\t%d\t%d (%d)\t%d (%d)\t%d (%d)\t%d = %.0f%% (%d)\t%d (%d)\n", k, on.Items, on.Auto, off.Auto,
			on.AutoCorrect, off.AutoCorrect, on.Confirm, off.Confirm, on.ConfirmTopAcceptable, 100*on.ConfirmTopRate,
			off.ConfirmTopAcceptable, on.New, off.New)
	}
	tw.Flush()
	fmt.Fprintln(w)

	fmt.Fprintln(w, "Ablation (overall)")
	for _, a := range r.Ablation {
		fmt.Fprintf(w, "  %.2f, %s (%s): guard on P %.2f R %.2f F1 %.2f (TP %d FP %d FN %d); guard off P %.2f R %.2f F1 %.2f\n",
			a.Threshold, a.Label, a.Scoring, a.Overall.Precision, a.Overall.Recall, a.Overall.F1, a.Overall.TP, a.Overall.FP, a.Overall.FN,
			a.GuardOff.Precision, a.GuardOff.Recall, a.GuardOff.F1)
	}
	fmt.Fprintf(w, "  paper at %.2f: P %.2f R %.2f\n\n", Paper.AblationThreshold, Paper.AblationPrecision, Paper.AblationRecall)

	WriteCalibrationText(w, r.Calibration)
	if r.CrossValidation != nil {
		WriteCalibrationText(w, *r.CrossValidation)
	}
	writeHeadText(w, r.Head)
	if len(r.Splits) > 0 {
		fmt.Fprintln(w, splitTableCaption(r))
		splitTable(r).text(w)
		fmt.Fprintln(w)
	}
	for i, l := range polarityLines(r) {
		if i > 0 {
			l = "  " + l
		}
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, "Polarity errors and false alarms (most confident first)")
	for _, e := range r.Polarity.Errors {
		fmt.Fprintln(w, "  "+polarityErrorLine(e))
	}
	if len(r.Polarity.Errors) == 0 {
		fmt.Fprintln(w, "  none")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Ranking (any threshold): an acceptable rule is first for %.0f%% of the %d match and ambiguous items, in the top 3 for %.0f%%\n",
		100*r.Ranking.Top1, r.Ranking.Items, 100*r.Ranking.Top3)
	o := r.LowOverlap
	fmt.Fprintf(w, "Phrasing: %d of %d match items (%.0f%%) share at most %d content word with their rule's template; recall at auto %.2f on them, %.2f on the others\n\n",
		o.LowOverlap, o.MatchItems, 100*o.Fraction, LowOverlapMax, o.LowRecall, o.HighRecall)

	fmt.Fprintf(w, "Worst false positives at auto %.2f (guard on)\n", r.Thresholds.Auto)
	for _, e := range r.WorstErrors.FalsePositives {
		fmt.Fprintf(w, "  %.3f  %-6s %-9s %s → %s\n", e.Score, e.ID, e.Kind, quote(e.Text), e.Predicted)
	}
	fmt.Fprintln(w, "Worst false negatives (lowest score of a right rule first)")
	for _, e := range r.WorstErrors.FalseNegatives {
		got := "nothing"
		if e.Predicted != "" {
			got = e.Predicted
		}
		fmt.Fprintf(w, "  %.3f  %-6s %-9s %s: want %s (rank %d), top %s %.3f, predicted %s%s\n", e.ExpectedScore, e.ID, e.Kind,
			quote(e.Text), strings.Join(e.Acceptable, "|"), e.ExpectedRank, e.Top, e.Score, got, reasonNote(e.Reason))
	}
}

// WriteCalibrationText prints a calibration for people: the method and
// targets, the thresholds chosen, precision and recall on the dev and held-out
// items, and the expected calibration errors.
func WriteCalibrationText(w io.Writer, c CalibrationReport) {
	fmt.Fprintf(w, "Calibration (%s; targets: auto precision %.2f, confirm %.2f)\n", c.Method, c.TargetAuto, c.TargetConfirm)
	fmt.Fprintf(w, "  chosen: auto %.2f%s, confirm %.2f%s\n", c.Thresholds.Auto, unreached(c.AutoReached),
		c.Thresholds.Confirm, unreached(c.ConfirmReached))
	for _, s := range []struct {
		name string
		op   Operating
	}{{"dev", c.Dev}, {"held out", c.Test}} {
		a, c, p := s.op.AtAuto, s.op.AtConfirm, s.op.Polarity
		fmt.Fprintf(w, "  %-8s (%d items): at auto P %.2f (%d/%d) R %.2f F1 %.2f; at confirm P %.2f (%d/%d) R %.2f; polarity errors %s = %s, false alarms %s\n",
			s.name, s.op.Items, a.Precision, a.TP, a.TP+a.FP, a.Recall, a.F1, c.Precision, c.TP, c.TP+c.FP, c.Recall,
			frac(p.Reinforced, p.Contradictions), pct(p.ErrorRate), frac(p.FalseAlarms, p.Affirmations))
	}
	fmt.Fprintf(w, "  auto threshold chosen for precision %.2f + margin %.2f (the smallest whose choice keeps precision %.2f by %d-fold cross-validation inside %s: %.3f)\n",
		c.TargetAuto, c.AutoMargin, c.TargetAuto, Folds, where(c.Method), c.AutoMarginPrecision)
	var cv []string
	for _, m := range c.MapChoices {
		cv = append(cv, fmt.Sprintf("%s %.3f", m.Method, m.ECE))
	}
	fmt.Fprintf(w, "  score → P(correct): %s, chosen by %d-fold cross-validated ECE inside %s (%s); held-out ECE before calibration (raw score read as a probability) %.3f, after %.3f (isotonic, %d steps: %.3f)\n\n",
		c.Map.Method, Folds, where(c.Method), strings.Join(cv, ", "), c.ECERawScore, c.ECE, len(c.Mapping), c.ECEIsotonic)
}

// kindCounts lists the items per kind: "120 match, 50 new, 30 ambiguous, 0 contradiction".
func kindCounts(n map[string]int) string {
	parts := make([]string, len(Kinds))
	for i, k := range Kinds {
		parts[i] = fmt.Sprintf("%d %s", n[k], k)
	}
	return strings.Join(parts, ", ")
}

func unreached(ok bool) string {
	if ok {
		return ""
	}
	return " (target not reached: best precision)"
}

func reasonNote(reason string) string {
	if reason == "" {
		return ""
	}
	return " [guard: " + strings.SplitN(reason, ":", 2)[0] + "]"
}

func quote(s string) string {
	if r := []rune(s); len(r) > 70 {
		s = string(r[:67]) + "..."
	}
	return fmt.Sprintf("%q", s)
}
