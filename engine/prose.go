package engine

import (
	"regexp"
	"strings"
	"unicode"
)

// MaxProseBytes bounds the prose Prose keeps of a prompt: more than the
// gate and the classifier read (all-MiniLM-L6-v2 sees 256 tokens), so
// nothing they use is lost, and small enough that a pasted megabyte is
// never stored or embedded.
const MaxProseBytes = 2048

// MaxCaptureBytes bounds what of a captured prompt is read at all: the
// text past it is dropped before any other work.
const MaxCaptureBytes = 64 << 10

// ProseResult is what Prose kept of a text.
type ProseResult struct {
	// Text is the prose lines, in order, joined by newlines, cut to
	// MaxProseBytes at a character boundary.
	Text string
	// Lines and PastedLines count the text's non-empty lines and those
	// read as pasted log, code or stack trace.
	Lines, PastedLines int
	// Cut is set when prose was cut at MaxProseBytes.
	Cut bool
}

// MostlyPasted reports whether most of the text's lines are pasted log,
// code or stack trace.
func (p ProseResult) MostlyPasted() bool { return p.PastedLines*2 > p.Lines }

var (
	// pastedLine matches one line of log, stack trace, shell transcript or
	// code: timestamps and levels, "at f(file:line)", Python's "File …,
	// line N", Go's goroutine and panic lines, diff and prompt markers,
	// numbered listings, and lines ending in a brace or semicolon.
	pastedLine = regexp.MustCompile(`^\s*(\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[?\d\d:\d\d:\d\d|` +
		`(ERROR|WARN|WARNING|INFO|DEBUG|TRACE|FATAL|CRITICAL)\b|at \S+[.(]|File "[^"]*", line \d+|Traceback \(|` +
		`goroutine \d+|panic:|Caused by:|\$ \S|>>> |[+-]{3} |@@ |\d+\s*[|│]|npm (ERR|WARN)!|error(\[E\d+\])?:|` +
		`[\w.]*(Error|Exception)\b[^ ]*:|[\w.$]+\(.*\)\s*$)|^(\t| {4})|\S+\.\w+:\d+|[{};]\s*$`)
	fence = regexp.MustCompile("^\\s*```")
)

// Prose keeps the lines of text a person wrote for the agent and drops
// what was pasted: fenced blocks, and lines that read as log, stack trace,
// shell transcript or code (pastedLine, or lines whose characters are
// mostly neither letters nor spaces). The gate and the classifier judge the
// prose alone, and a captured prompt stores at most MaxProseBytes of it:
// a question about a pasted log is about the question, and the log is
// neither a correction nor a rule.
func Prose(text string) ProseResult {
	var out ProseResult
	var kept []string
	size := 0
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		out.Lines++
		if fence.MatchString(line) {
			inFence = !inFence
			out.PastedLines++
			continue
		}
		if inFence || pastedLine.MatchString(line) || symbolic(line) {
			out.PastedLines++
			continue
		}
		line = strings.TrimSpace(line)
		if size+len(line)+1 > MaxProseBytes {
			out.Cut = true
			if rest := MaxProseBytes - size - 1; rest > 0 && len(kept) == 0 {
				kept = append(kept, CutAtRune(line, rest))
			}
			break
		}
		kept = append(kept, line)
		size += len(line) + 1
	}
	out.Text = strings.Join(kept, "\n")
	return out
}

// symbolic reports whether most of line's characters are neither letters
// nor spaces (a line of code, a hash, a path list) in a line long enough to
// judge.
func symbolic(line string) bool {
	letters, total := 0, 0
	for _, r := range line {
		total++
		if unicode.IsLetter(r) || unicode.IsSpace(r) {
			letters++
		}
	}
	return total >= 12 && letters*10 < total*6
}
