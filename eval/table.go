package eval

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// table is a small table printed either aligned for a terminal or as
// Markdown: a header and rows of cells.
type table struct {
	head []string
	rows [][]string
}

func (t *table) row(cells ...string) { t.rows = append(t.rows, cells) }

// text writes t with aligned columns.
func (t *table) text(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.head, "\t"))
	for _, r := range t.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

// markdown writes t as a Markdown table, the first column left-aligned and
// the others right-aligned.
func (t *table) markdown(w io.Writer) {
	fmt.Fprintf(w, "| %s |\n|---|%s\n", strings.Join(t.head, " | "), strings.Repeat("---:|", len(t.head)-1))
	for _, r := range t.rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = mdEscape(c)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

// f2 formats a number with two decimals.
func f2(x float64) string { return fmt.Sprintf("%.2f", x) }

// pct formats a share as a percentage with one decimal.
func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// frac formats a count out of a total.
func frac(a, b int) string { return fmt.Sprintf("%d/%d", a, b) }
