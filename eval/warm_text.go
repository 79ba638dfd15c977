package eval

import (
	"fmt"
	"io"
	"strings"
)

// warmShell is a Report holding w's sections, so that the cold report's
// section writers print them.
func warmShell(r Report, w *WarmReport) Report {
	return Report{Thresholds: r.Thresholds, Scoring: r.Scoring, Splits: w.Splits, Polarity: w.Polarity}
}

// warmCaption introduces the warm section.
func warmCaption(w *WarmReport) string {
	return fmt.Sprintf("Warm: after some use — the same items classified again with confirmed corrections as learned exemplars (%s; %d exemplars for the held-out items). Everything above is cold: the registry's texts alone", w.Method, w.Learned)
}

// warmSplitCaption explains the warm split table.
func warmSplitCaption(r Report) string {
	return fmt.Sprintf("Warm, by split (guard on; the product (%s) at auto %.2f, with its polarity at auto %.2f / confirm %.2f and its ranking of the match and ambiguous items)",
		r.Scoring, r.Thresholds.Auto, r.Thresholds.Auto, r.Thresholds.Confirm)
}

// writeWarmMarkdown writes r.Warm as a section of the Markdown report.
func writeWarmMarkdown(w io.Writer, r Report) {
	if r.Warm == nil {
		return
	}
	fmt.Fprintf(w, "## Warm: after some use\n\n%s.\n\n%s.\n\n| target | held out | goal | |\n|---|---:|---:|---|\n", warmCaption(r.Warm), targetsHeading(r.Warm.Targets))
	writeTargetRows(w, r.Warm.Targets)
	var cal strings.Builder
	WriteCalibrationText(&cal, r.Warm.Calibration)
	writeHeadText(&cal, r.Warm.Head)
	fmt.Fprintf(w, "\n```\n%s\n```\n", strings.TrimRight(cal.String(), "\n"))
	if len(r.Warm.Splits) > 0 {
		fmt.Fprintf(w, "\n%s.\n\n", warmSplitCaption(r))
		splitTableOf(warmShell(r, r.Warm), false).markdown(w)
	}
	fmt.Fprintf(w, "\nRanking, whatever the thresholds: an acceptable rule is first for %.0f%% of the %d match and ambiguous items, in the top 3 for %.0f%%.\n\n",
		100*r.Warm.Ranking.Top1, r.Warm.Ranking.Items, 100*r.Warm.Ranking.Top3)
}

// writeWarmText prints r.Warm for people: the targets, the calibration and
// the numbers per split.
func writeWarmText(w io.Writer, r Report) {
	if r.Warm == nil {
		return
	}
	fmt.Fprintln(w, warmCaption(r.Warm))
	WriteTargetsText(w, r.Warm.Targets)
	WriteCalibrationText(w, r.Warm.Calibration)
	writeHeadText(w, r.Warm.Head)
	if len(r.Warm.Splits) > 0 {
		fmt.Fprintln(w, warmSplitCaption(r))
		splitTableOf(warmShell(r, r.Warm), false).text(w)
	}
	fmt.Fprintf(w, "Ranking (any threshold): an acceptable rule is first for %.0f%% of the %d match and ambiguous items, in the top 3 for %.0f%%\n\n",
		100*r.Warm.Ranking.Top1, r.Warm.Ranking.Items, 100*r.Warm.Ranking.Top3)
}
