package eval

import (
	"fmt"
	"io"
	"strings"
)

// This file holds the report sections printed the same way in the text and
// the Markdown report: the targets, the paper's operating points, the splits
// and the polarity.

// formatTarget formats a target's value the way its goal is written.
func formatTarget(t Target, v float64) string {
	switch t.Name {
	case "polarity errors":
		return pct(v)
	case "ECE after calibration":
		return fmt.Sprintf("%.3f", v)
	}
	return f2(v)
}

// targetText is one target: "auto precision 0.91 (21/23) ≥ 0.95: NOT MET".
func targetText(t Target) string {
	cmp, verdict := "≥", "met"
	if t.AtMost {
		cmp = "≤"
	}
	switch {
	case !t.Measured:
		verdict = "not measured (nothing to measure it on)"
	case !t.Met:
		verdict = "NOT MET"
	}
	return fmt.Sprintf("%s %s (%s) %s %s: %s", t.Name, formatTarget(t, t.Value), t.Detail, cmp, formatTarget(t, t.Goal), verdict)
}

// targetsHeading says where the targets were measured.
func targetsHeading(ts Targets) string {
	where := fmt.Sprintf("the held-out test split (%d items) at the thresholds calibrated on dev", ts.Items)
	if ts.Method != splitMethod {
		where = fmt.Sprintf("the held-out folds of %s (%d items, pooled) at each fold's thresholds", ts.Method, ts.Items)
	}
	return fmt.Sprintf("Targets on %s (auto %.2f, confirm %.2f)", where, ts.Thresholds.Auto, ts.Thresholds.Confirm)
}

// WriteTargetsText prints the targets for people: where they were measured,
// whether all are met, and one line with every target and its verdict.
func WriteTargetsText(w io.Writer, ts Targets) {
	parts := make([]string, len(ts.Targets))
	for i, t := range ts.Targets {
		parts[i] = targetText(t)
	}
	verdict := "not all met"
	if ts.AllMet {
		verdict = "all met"
	}
	fmt.Fprintf(w, "%s: %s\n  %s\n", targetsHeading(ts), verdict, strings.Join(parts, "; "))
}

// paperTable is the Appendix B table at the paper's threshold and its
// ablation threshold, next to the paper's claims.
func paperTable(r Report) *table {
	at, ab := r.PaperComparison.AtThreshold, r.PaperComparison.AtAblation
	t := &table{head: []string{"category",
		fmt.Sprintf("P@%.2f", at.Threshold), "R", "F1", "TP", "FP", "FN",
		fmt.Sprintf("P@%.2f", ab.Threshold), "R", "F1",
		fmt.Sprintf("paper P@%.2f", Paper.Threshold), "R", "F1",
		fmt.Sprintf("paper P@%.2f", Paper.AblationThreshold), "R"}}
	for _, c := range append(categoryOrder(at.ByCategory), "overall", "overall, guard off") {
		m85, m75 := at.Overall, ab.Overall
		switch c {
		case "overall, guard off":
			m85, m75 = at.GuardOffOverall, ab.GuardOffOverall
		case "overall":
		default:
			m85, m75 = at.ByCategory[c], ab.ByCategory[c]
		}
		paper, ablation := []string{"–", "–", "–"}, []string{"–", "–"}
		if p, ok := paperRow(c); ok {
			paper = []string{f2(p.Precision), f2(p.Recall), f2(p.F1)}
		}
		if c == "overall" {
			ablation = []string{f2(Paper.AblationPrecision), f2(Paper.AblationRecall)}
		}
		row := []string{c, f2(m85.Precision), f2(m85.Recall), f2(m85.F1)}
		row = append(row, strings.Split(counts(m85), "\t")...)
		row = append(row, f2(m75.Precision), f2(m75.Recall), f2(m75.F1))
		t.row(append(append(row, paper...), ablation...)...)
	}
	return t
}

// paperTableCaption explains paperTable.
func paperTableCaption(r Report) string {
	n := r.Counts[KindMatch] + r.Counts[KindNew] + r.Counts[KindAmbiguous]
	return fmt.Sprintf("The paper's Appendix B at its threshold %.2f and its ablation %.2f, scored with the paper's method (%s only, the same guard; guard on unless said; all %d items of the paper's kinds: these thresholds are fixed, nothing was chosen on the data), next to the paper's claims (%d match, %d new, %d ambiguous, unpublished). The product (%s) is measured at its calibrated thresholds below",
		Paper.Threshold, Paper.AblationThreshold, ScoringDense, n, Paper.Counts[0], Paper.Counts[1], Paper.Counts[2], r.Scoring)
}

// splitTable is the headline numbers per split.
func splitTable(r Report) *table { return splitTableOf(r, true) }

// splitTableOf is splitTable, with the paper's method's columns when paper
// is set.
func splitTableOf(r Report, paper bool) *table {
	head := []string{"split", "items", fmt.Sprintf("auto %.2f P", r.Thresholds.Auto), "R", "F1"}
	if paper {
		head = append(head, fmt.Sprintf("cosine P@%.2f", Paper.Threshold), "R", fmt.Sprintf("cosine P@%.2f", Paper.AblationThreshold), "R")
	}
	t := &table{head: append(head, "top-1", "top-3", "polarity errors", "false alarms", "detector P", "R")}
	for _, v := range r.Splits {
		p := v.Polarity
		row := []string{v.Split, fmt.Sprint(v.Items), f2(v.AtAuto.Precision), f2(v.AtAuto.Recall), f2(v.AtAuto.F1)}
		if paper {
			row = append(row, f2(v.AtPaper.Precision), f2(v.AtPaper.Recall), f2(v.AtAblation.Precision), f2(v.AtAblation.Recall))
		}
		t.row(append(row, f2(v.Ranking.Top1), f2(v.Ranking.Top3),
			fmt.Sprintf("%s = %s", frac(p.Reinforced, p.Contradictions), pct(p.ErrorRate)),
			fmt.Sprintf("%s = %s", frac(p.FalseAlarms, p.Affirmations), pct(p.FalseAlarmRate)),
			f2(p.Detector.Precision), f2(p.Detector.Recall))...)
	}
	return t
}

// splitTableCaption explains splitTable.
func splitTableCaption(r Report) string {
	return fmt.Sprintf("By split (guard on; the product (%s) at auto %.2f, with its polarity at auto %.2f / confirm %.2f and its ranking of the match and ambiguous items; the paper's method (%s only) at the paper's %.2f and %.2f)",
		r.Scoring, r.Thresholds.Auto, r.Thresholds.Auto, r.Thresholds.Confirm, ScoringDense, Paper.Threshold, Paper.AblationThreshold)
}

// polarityLines describes r.Polarity in a few lines.
func polarityLines(r Report) []string {
	p := r.Polarity.All
	d := p.Detector
	lines := []string{
		fmt.Sprintf("Polarity at auto %.2f / confirm %.2f (guard on), %d contradiction items: %d countered on their rule, %d countered on another rule, %d sent to confirmation, %d with nothing recorded: handled %s = %s",
			r.Thresholds.Auto, r.Thresholds.Confirm, p.Contradictions, p.Countered, p.CounteredOther, p.Confirm, p.Nothing,
			frac(p.Handled, p.Contradictions), pct(p.HandledRate)),
		fmt.Sprintf("polarity errors (a contradiction recorded as a reinforcement): %s = %s; false alarms (a match or ambiguous item recorded as a counterexample): %s = %s",
			frac(p.Reinforced, p.Contradictions), pct(p.ErrorRate), frac(p.FalseAlarms, p.Affirmations), pct(p.FalseAlarmRate)),
		fmt.Sprintf("contradiction detector, any threshold (positive = contradiction detected on the top rule): precision %.2f (%s), recall %.2f (%s), F1 %.2f",
			d.Precision, frac(d.TP, d.TP+d.FP), d.Recall, frac(d.TP, d.TP+d.FN), d.F1),
		fmt.Sprintf("the contradicted rule scores first for %.0f%% of the contradiction items, in the top 3 for %.0f%%",
			100*r.Polarity.Ranking.Top1, 100*r.Polarity.Ranking.Top3),
	}
	return lines
}

// polarityErrorLine is one polarity error or false alarm.
func polarityErrorLine(e ErrorCase) string {
	what := "recorded as a reinforcement of"
	if e.Type == ErrorFalseAlarm {
		what = "recorded as a counterexample of"
	}
	return fmt.Sprintf("%.3f  %-6s %-13s %s %s %s", e.Score, e.ID, e.Kind, quote(e.Text), what, e.Top)
}
