package models

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress reports a Pull: a progress bar per file when the writer is a
// terminal, one line per file otherwise, nothing for a nil writer.
type progress struct {
	w   io.Writer
	tty bool
}

func newProgress(w io.Writer) progress {
	p := progress{w: w}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
	}
	return p
}

// barWriter counts bytes as they are written to the file.
type barWriter interface {
	io.Writer
	Close() error
}

type nopBar struct{}

func (nopBar) Write(b []byte) (int, error) { return len(b), nil }
func (nopBar) Close() error                { return nil }

// start begins a file's transfer; have bytes are already in its .part file.
func (p progress) start(path string, size, have int64) barWriter {
	if p.w == nil {
		return nopBar{}
	}
	if !p.tty {
		if have > 0 {
			fmt.Fprintf(p.w, "resuming %s at %s of %s\n", path, humanBytes(have), humanBytes(size))
		} else {
			fmt.Fprintf(p.w, "downloading %s (%s)\n", path, humanBytes(size))
		}
		return nopBar{}
	}
	bar := progressbar.NewOptions64(size,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(path),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.w) }),
	)
	if have > 0 {
		bar.Add64(have)
	}
	return bar
}

func (p progress) skip(path string) {
	if p.w != nil {
		fmt.Fprintf(p.w, "%s is already here and intact\n", path)
	}
}

func (p progress) done(path string, rf remoteFile) {
	if p.w == nil {
		return
	}
	check := "size checked"
	switch {
	case rf.sha256 != "":
		check = "sha256 verified"
	case rf.gitSHA != "":
		check = "git sha1 verified"
	case rf.size < 0:
		check = "not verified: the hub sent no size or checksum"
	}
	fmt.Fprintf(p.w, "%s ok (%s)\n", path, check)
}

func humanBytes(n int64) string {
	switch {
	case n < 0:
		return "size unknown"
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}
