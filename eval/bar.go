package eval

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// bar is a progress bar on a terminal, or nothing (a pipe, a file, a test's
// buffer get no output at all).
type bar struct{ pb *progressbar.ProgressBar }

func newBar(w io.Writer, total int, what string) bar {
	f, ok := w.(*os.File)
	if !ok || f == nil || !term.IsTerminal(int(f.Fd())) {
		return bar{}
	}
	return bar{progressbar.NewOptions(total,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(f) }),
	)}
}

func (b bar) add(n int) {
	if b.pb != nil {
		_ = b.pb.Add(n)
	}
}

func (b bar) finish() {
	if b.pb != nil {
		_ = b.pb.Exit()
	}
}
