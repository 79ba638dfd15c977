package models

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Bar is a counting progress bar drawn only when its writer is a terminal; a
// pipe, a file or a test's buffer gets no output at all. The zero value (and
// nil) draws nothing.
type Bar struct{ pb *progressbar.ProgressBar }

// NewBar starts a bar of total steps labelled what on w, if w is a terminal.
func NewBar(w io.Writer, total int, what string) *Bar {
	f, ok := w.(*os.File)
	if !ok || f == nil || !term.IsTerminal(int(f.Fd())) {
		return &Bar{}
	}
	return &Bar{progressbar.NewOptions(total,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(f) }),
	)}
}

// Add advances the bar by n steps.
func (b *Bar) Add(n int) {
	if b != nil && b.pb != nil {
		_ = b.pb.Add(n)
	}
}

// Finish ends the bar, leaving the terminal on a new line.
func (b *Bar) Finish() {
	if b != nil && b.pb != nil {
		_ = b.pb.Exit()
	}
}
