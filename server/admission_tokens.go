package server

import (
	"sync"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// Bounds of the token admission (see tokenBudget).
const (
	// minTokenWindow is the tokens always admitted together, whatever the
	// measured rate: what a burst of classify and correction requests holds
	// (a few hundred texts of a sentence or two).
	minTokenWindow = 8192
	// rateHorizon is how much busy time the measured rate remembers: older
	// work weighs less as newer work comes in.
	rateHorizon = 60 * time.Second
	// minRateSample is the busy time measured before the rate is trusted.
	minRateSample = 20 * time.Millisecond
	// maxRetryAfter bounds the Retry-After of a token refusal.
	maxRetryAfter = 60 * time.Second
)

// tokenBudget admits embedding work by its tokens: a call is admitted when
// nothing is in flight (so a call always gets its turn), or when the tokens
// in flight with its own are at most what the model embeds within budget at
// its measured rate (at least minTokenWindow). The rate is the tokens of
// the calls that finished over the time work was in flight (busy time),
// over the last rateHorizon of busy time: it follows the model, the
// machine's load and the lengths of the texts sent; a call that fails or is
// cancelled adds its busy time but not its tokens, so a model falling
// behind admits less. Until a rate is measured, minTokenWindow is the bound.
type tokenBudget struct {
	budget time.Duration
	now    func() time.Time

	mu       sync.Mutex
	inflight int64
	lastMark time.Time // when busy was last brought up to date
	done     float64   // tokens finished, over busy
	busy     float64   // seconds with work in flight
}

func newTokenBudget(budget time.Duration, now func() time.Time) *tokenBudget {
	if now == nil {
		now = time.Now
	}
	return &tokenBudget{budget: budget, now: now}
}

// mark adds the time since the last mark to busy when work was in flight.
// Callers hold mu.
func (b *tokenBudget) mark() {
	t := b.now()
	if b.inflight > 0 && !b.lastMark.IsZero() {
		b.busy += t.Sub(b.lastMark).Seconds()
	}
	b.lastMark = t
}

// trim scales the measurement down to rateHorizon of busy time, keeping
// the rate. Callers hold mu.
func (b *tokenBudget) trim() {
	if h := rateHorizon.Seconds(); b.busy > h {
		b.done *= h / b.busy
		b.busy = h
	}
}

// rate is the measured tokens per second, 0 until measured. Callers hold mu.
func (b *tokenBudget) rate() float64 {
	if b.busy < minRateSample.Seconds() || b.done <= 0 {
		return 0
	}
	return b.done / b.busy
}

// window is the tokens the model embeds within budget. Callers hold mu.
func (b *tokenBudget) window() int64 {
	w := int64(b.rate() * b.budget.Seconds())
	return max(w, minTokenWindow)
}

// admit takes n tokens into flight, or returns EOVERLOADED (an
// *overloadedError whose Retry-After is when enough of the work in flight
// should be done for n to fit).
func (b *tokenBudget) admit(n int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.mark()
	b.trim()
	w := b.window()
	if b.inflight > 0 && b.inflight+n > w {
		retry := time.Second
		if r := b.rate(); r > 0 {
			retry = min(max(time.Duration(float64(b.inflight+n-w)/r*float64(time.Second)), time.Second), maxRetryAfter)
		}
		return &overloadedError{engine.Errorf(engine.EOVERLOADED,
			"the server is embedding %d tokens already and embeds about %d within %s: this request's %d tokens must wait; retry later",
			b.inflight, w, b.budget.Round(time.Second), n), retry}
	}
	b.inflight += n
	return nil
}

// release takes n tokens out of flight; ok: they were embedded (counted in
// the rate).
func (b *tokenBudget) release(n int64, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.mark()
	b.inflight -= n
	if ok {
		b.done += float64(n)
	}
	b.trim()
}

// inFlight is the number of tokens admitted and not yet released.
func (b *tokenBudget) inFlight() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.inflight
}
