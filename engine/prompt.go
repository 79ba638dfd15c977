package engine

import (
	"strconv"
	"strings"
)

// RenderPrompt renders a snapshot as the Markdown block injected into an
// agent's prompt: a heading with the scope, then MUST, SHOULD and STYLE
// sections with one line per rule, provisional rules marked, and each
// rule's receipt: the date the user stated it, or how often it was
// reinforced.
func RenderPrompt(s Snapshot) string {
	var b strings.Builder
	b.WriteString("## LexSona Behavioral Rules (scope: " + s.Scope.String() + ")\n\n")
	if len(s.Rules) == 0 {
		b.WriteString("No behavioral rules are active for this scope.\n")
		return b.String()
	}
	b.WriteString("Based on past corrections, follow these preferences:\n")
	for _, sec := range []struct {
		sev   Severity
		title string
	}{{SeverityMust, "MUST"}, {SeverityShould, "SHOULD"}, {SeverityStyle, "STYLE"}} {
		first := true
		for _, r := range s.Rules {
			if r.Severity != sec.sev {
				continue
			}
			if first {
				b.WriteString("\n### " + sec.title + "\n")
				first = false
			}
			b.WriteString("- ")
			if r.Provisional {
				b.WriteString("(provisional) ")
			}
			b.WriteString("[" + r.RuleID + "] " + OneLine(r.Text))
			if r.Stated != nil {
				b.WriteString(" (stated by the user: " + r.Stated.At.UTC().Format("2006-01-02") + ")\n")
				continue
			}
			b.WriteString(" (reinforced " + itoa(r.Reinforcements) + " " + plural(r.Reinforcements, "time", "times"))
			b.WriteString(", last: " + r.LastCorrection.UTC().Format("2006-01-02") + ")\n")
		}
	}
	if s.Truncated > 0 {
		b.WriteString("\n(" + itoa(s.Truncated) + " more " + plural(s.Truncated, "rule", "rules") + " left out by the snapshot limit.)\n")
	}
	return b.String()
}

// EstimateTokens estimates the tokens of text for a BPE tokenizer: about one
// token per four bytes, rounded up.
func EstimateTokens(text string) int { return (len(text) + 3) / 4 }

// OneLine folds s's white space runs, line ends included, into single spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func itoa(n int) string { return strconv.Itoa(n) }

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', ConfidenceDecimals, 64) }
