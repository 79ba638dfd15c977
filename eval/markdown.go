package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Files WriteDir writes besides the plots.
const (
	ReportMarkdown = "report.md"
	ReportJSON     = "report.json"
)

// WriteDir writes the plots, report.md (which embeds them) and report.json
// into dir, creating it, and returns the names written. Errors are the file
// system's or gonum's.
func WriteDir(dir string, r Report) ([]string, error) {
	plots, err := WritePlots(dir, r)
	if err != nil {
		return plots, err
	}
	var md bytes.Buffer
	WriteMarkdown(&md, r, plots)
	if err := os.WriteFile(filepath.Join(dir, ReportMarkdown), md.Bytes(), 0o644); err != nil {
		return plots, err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return plots, err
	}
	if err := os.WriteFile(filepath.Join(dir, ReportJSON), append(js, '\n'), 0o644); err != nil {
		return plots, err
	}
	return append(plots, ReportMarkdown, ReportJSON), nil
}

// WriteMarkdown writes r as a Markdown report that embeds the given plot
// files (relative names, as WritePlots returns them).
func WriteMarkdown(w io.Writer, r Report, plots []string) {
	fmt.Fprintf(w, "# LexSona eval: %s\n\n", r.Embedder)
	fmt.Fprintf(w, "- model: `%s`\n- registry: `%s`\n- dataset: `%s` (%s)\n", r.Model, r.Registry, r.Dataset, kindCounts(r.Counts))
	fmt.Fprintf(w, "- thresholds: auto %.2f, confirm %.2f (%s)\n- guard: %d content word(s), auto margin %.2f, neighbour margin %.2f\n",
		r.Thresholds.Auto, r.Thresholds.Confirm, r.ThresholdsSource, r.Guard.MinContentWords, r.Guard.AutoMargin, r.Guard.NeighbourMargin)
	fmt.Fprintf(w, "- scoring: %s (the paper's tables: %s alone)\n\n", r.Scoring, ScoringDense)

	fmt.Fprintf(w, "## Targets\n\n%s.\n\n| target | held out | goal | |\n|---|---:|---:|---|\n", targetsHeading(r.Targets))
	writeTargetRows(w, r.Targets)
	fmt.Fprintln(w)
	writeWarmMarkdown(w, r)
	fmt.Fprintf(w, "## The paper's operating points\n\n%s.\n\n", paperTableCaption(r))
	paperTable(r).markdown(w)
	fmt.Fprintln(w)

	fmt.Fprintf(w, "## Appendix B table of the product (%s) at the evaluated auto = %.2f\n\n", r.Scoring, r.Thresholds.Auto)
	fmt.Fprintln(w, "Precision per category groups predictions by the predicted rule's category, recall groups items by the expected rule's; overall is micro-averaged. The paper's numbers are its claims for all-MiniLM-L6-v2 at 0.85 on unpublished data.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| category | P | R | F1 | TP | FP | FN | guard off P | R | F1 | paper P | R | F1 |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, c := range append(categoryOrder(r.ByCategory), "overall") {
		on, off := r.Overall, r.GuardOff.Overall
		if c != "overall" {
			on, off = r.ByCategory[c], r.GuardOff.ByCategory[c]
		}
		paper := "– | – | –"
		if p, ok := paperRow(c); ok {
			paper = fmt.Sprintf("%.2f | %.2f | %.2f", p.Precision, p.Recall, p.F1)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", c, cells(prf(on)), cells(counts(on)), cells(prf(off)), paper)
	}
	fmt.Fprintln(w)

	fmt.Fprintf(w, "## Bands at auto %.2f / confirm %.2f\n\nGuard on (guard off in parentheses).\n\n", r.Thresholds.Auto, r.Thresholds.Confirm)
	fmt.Fprintln(w, "| kind | items | auto | auto correct | confirm | confirm top acceptable | new |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	for _, k := range Kinds {
		on, off := r.Bands[k], r.GuardOff.Bands[k]
		fmt.Fprintf(w, "| %s | %d | %d (%d) | %d (%d) | %d (%d) | %d = %.0f%% (%d) | %d (%d) |\n", k, on.Items, on.Auto, off.Auto,
			on.AutoCorrect, off.AutoCorrect, on.Confirm, off.Confirm, on.ConfirmTopAcceptable, 100*on.ConfirmTopRate,
			off.ConfirmTopAcceptable, on.New, off.New)
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, "## Ablation\n\n| threshold | | P | R | F1 | guard off P | R | F1 |\n|---:|---|---:|---:|---:|---:|---:|---:|")
	for _, a := range r.Ablation {
		fmt.Fprintf(w, "| %.2f | %s (%s) | %s | %s |\n", a.Threshold, a.Label, a.Scoring, cells(prf(a.Overall)), cells(prf(a.GuardOff)))
	}
	fmt.Fprintf(w, "| %.2f | paper | %.2f | %.2f | – | | | |\n\n", Paper.AblationThreshold, Paper.AblationPrecision, Paper.AblationRecall)

	var cal bytes.Buffer
	WriteCalibrationText(&cal, r.Calibration)
	if r.CrossValidation != nil {
		WriteCalibrationText(&cal, *r.CrossValidation)
	}
	writeHeadText(&cal, r.Head)
	fmt.Fprintf(w, "## Calibration\n\n```\n%s\n```\n", strings.TrimRight(cal.String(), "\n"))
	if len(r.Splits) > 0 {
		fmt.Fprintf(w, "\n## By split\n\n%s.\n\n", splitTableCaption(r))
		splitTable(r).markdown(w)
	}
	fmt.Fprintln(w, "\n## Polarity")
	fmt.Fprintln(w)
	for _, l := range polarityLines(r) {
		fmt.Fprintf(w, "- %s\n", l)
	}
	if len(r.Polarity.Errors) > 0 {
		fmt.Fprintln(w, "\n| type | id | text | rule recorded (score) |\n|---|---|---|---|")
		for _, e := range r.Polarity.Errors {
			fmt.Fprintf(w, "| %s | %s | %s | %s (%.3f) |\n", e.Type, e.ID, mdEscape(e.Text), e.Top, e.Score)
		}
	}
	o := r.LowOverlap
	fmt.Fprintf(w, "\nRanking, whatever the thresholds: an acceptable rule is first for %.0f%% of the %d match and ambiguous items, in the top 3 for %.0f%%.\n",
		100*r.Ranking.Top1, r.Ranking.Items, 100*r.Ranking.Top3)
	fmt.Fprintf(w, "\n%d of %d match items (%.0f%%) share at most %d content word with their rule's template; recall at auto is %.2f on them and %.2f on the others.\n\n",
		o.LowOverlap, o.MatchItems, 100*o.Fraction, LowOverlapMax, o.LowRecall, o.HighRecall)

	fmt.Fprintln(w, "## Plots")
	for _, p := range plots {
		fmt.Fprintf(w, "\n![%s](%s)\n", strings.TrimSuffix(p, ".png"), p)
	}
	fmt.Fprintln(w, "\n## Worst errors at the auto threshold (guard on)")
	fmt.Fprintln(w, "\n| type | id | text | acceptable | predicted | top (score) | right rule score (rank) |\n|---|---|---|---|---|---|---|")
	for _, e := range append(append([]ErrorCase{}, r.WorstErrors.FalsePositives...), r.WorstErrors.FalseNegatives...) {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s (%.3f) | %s |\n", e.Type, e.ID, mdEscape(e.Text), strings.Join(e.Acceptable, ", "),
			orDash(e.Predicted)+reasonNote(e.Reason), e.Top, e.Score, rankCell(e))
	}
}

// writeTargetRows writes one Markdown table row per target.
func writeTargetRows(w io.Writer, ts Targets) {
	for _, t := range ts.Targets {
		cmp, verdict := "≥", "met"
		if t.AtMost {
			cmp = "≤"
		}
		if !t.Met {
			verdict = "**not met**"
		}
		fmt.Fprintf(w, "| %s | %s (%s) | %s %s | %s |\n", t.Name, formatTarget(t, t.Value), t.Detail, cmp, formatTarget(t, t.Goal), verdict)
	}
}

// cells turns tab-separated values into Markdown cells.
func cells(s string) string { return strings.ReplaceAll(s, "\t", " | ") }

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "`", "'").Replace(s)
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func rankCell(e ErrorCase) string {
	if e.ExpectedRank == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f (%d)", e.ExpectedScore, e.ExpectedRank)
}
