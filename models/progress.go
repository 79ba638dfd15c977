package models

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Step is one report of a long job: What names the step ("onnx/model.onnx",
// "embedding rule texts"), Done of Total units are finished (Total < 0 when
// unknown), and Bytes says the units are bytes. A step's reports have
// non-decreasing Done; its last has Done == Total.
type Step struct {
	What        string
	Done, Total int64
	Bytes       bool
}

// Progress is the hook long jobs (hub.Pull, modelimport.Import, the
// registry's precompute job) report to. A nil Progress is silent; Report
// calls it only when it is not nil. One job reports from one goroutine.
type Progress func(Step)

// Report calls p with s when p is not nil.
func (p Progress) Report(s Step) {
	if p != nil {
		p(s)
	}
}

// Counter reports a step counted in units of work on p.
type Counter struct {
	p     Progress
	what  string
	done  int64
	total int64
}

// Count starts a step of total units named what on p, reporting 0 done.
func Count(p Progress, what string, total int) *Counter {
	c := &Counter{p: p, what: what, total: int64(total)}
	p.Report(Step{What: what, Total: c.total})
	return c
}

// Add reports n more units done.
func (c *Counter) Add(n int) {
	c.done += int64(n)
	c.p.Report(Step{What: c.what, Done: c.done, Total: c.total})
}

// TermProgress renders Progress reports on w as a progress bar per step
// when w is a terminal; a pipe, a file or a test's buffer gets nothing (the
// Progress is nil). A step's bar ends, leaving the terminal on a new line,
// when a report completes it or another step starts; end ends a bar left
// open by a job that stopped early. Call end once the job returns.
func TermProgress(w io.Writer) (p Progress, end func()) {
	f, ok := w.(*os.File)
	if !ok || f == nil || !term.IsTerminal(int(f.Fd())) {
		return nil, func() {}
	}
	r := &termBars{f: f}
	return r.report, r.end
}

// termBars is TermProgress's renderer: at most one bar open at a time.
type termBars struct {
	f    *os.File
	mu   sync.Mutex
	bar  *progressbar.ProgressBar
	what string
}

func (r *termBars) report(s Step) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bar != nil && s.What != r.what {
		_ = r.bar.Exit()
		r.bar = nil
	}
	if r.bar == nil {
		r.what = s.What
		opts := []progressbar.Option{
			progressbar.OptionSetWriter(r.f),
			progressbar.OptionSetDescription(s.What),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100 * time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(r.f) }),
		}
		if s.Bytes {
			opts = append(opts, progressbar.OptionShowBytes(true))
		} else {
			opts = append(opts, progressbar.OptionShowCount())
		}
		r.bar = progressbar.NewOptions64(s.Total, opts...)
	}
	_ = r.bar.Set64(s.Done)
	if s.Total >= 0 && s.Done >= s.Total {
		_ = r.bar.Finish()
		r.bar = nil
	}
}

func (r *termBars) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bar != nil {
		_ = r.bar.Exit()
		r.bar = nil
	}
}
