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
//
// A call the model cannot embed before its deadline even alone, at the
// measured rate, and that takes it longer than the budget, is refused at
// once (ETOOLARGE) instead of being admitted to fail when its time is up; a refusal under load (EOVERLOADED) carries
// a Retry-After of when enough of the work in flight should be done.
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

// wait is how long the model takes to embed n tokens, as a Retry-After:
// at the measured rate, or before one is measured at the rate the window
// assumes (minTokenWindow within budget); within [1 s, maxRetryAfter].
// Callers hold mu.
func (b *tokenBudget) wait(n int64) time.Duration {
	r := b.rate()
	if r <= 0 && b.budget > 0 {
		r = minTokenWindow / b.budget.Seconds()
	}
	d := time.Second
	if r > 0 {
		d = time.Duration(float64(n) / r * float64(time.Second))
	}
	return min(max(d, time.Second), maxRetryAfter)
}

// drain is wait for the tokens in flight: when the work admitted should
// be done.
func (b *tokenBudget) drain() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.wait(b.inflight)
}

// tooLarge is the ETOOLARGE error of a call of n tokens that the model, at
// its measured rate, cannot embed within left, nil when it can, before a
// rate is measured, or when the call takes no longer than the budget (it
// is not large: its request has spent its time elsewhere, and its time
// limit answers it). Callers hold mu.
func (b *tokenBudget) tooLarge(n int64, left time.Duration) error {
	r := b.rate()
	if r <= 0 {
		return nil
	}
	need := time.Duration(float64(n) / r * float64(time.Second))
	if need <= left || need <= b.budget {
		return nil
	}
	return engine.Errorf(engine.ETOOLARGE,
		"this request's %d tokens take the model about %s at the rate it embeds (%.0f tokens/s), past the %s the request has: send fewer or shorter texts (about %d tokens fit)",
		n, need.Round(time.Second), r, left.Round(time.Second), int64(r*left.Seconds()))
}

// admit takes n tokens into flight for a call that has left until its
// deadline (<= 0: none), or returns ETOOLARGE (see tooLarge) or
// EOVERLOADED (an *overloadedError whose Retry-After is when enough of the
// work in flight should be done for n to fit).
func (b *tokenBudget) admit(n int64, left time.Duration) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.mark()
	b.trim()
	if left > 0 {
		if err := b.tooLarge(n, left); err != nil {
			return err
		}
	}
	w := b.window()
	if b.inflight > 0 && b.inflight+n > w {
		return &overloadedError{engine.Errorf(engine.EOVERLOADED,
			"the server is embedding %d tokens already and embeds about %d within %s: this request's %d tokens must wait; retry later",
			b.inflight, w, b.budget.Round(time.Second), n), b.wait(b.inflight + n - w)}
	}
	b.inflight += n
	return nil
}

// onTrack checks, between the chunks of a call of total tokens that has
// limit in all, that its rest tokens can still be embedded in the left it
// has: nil when they can (or no rate is measured); ETOOLARGE when the whole
// call cannot be within limit at the rate measured now; else EOVERLOADED
// (the model is slower now, with other work in flight) with a Retry-After
// of when the rest of that work should be done.
func (b *tokenBudget) onTrack(rest, total int64, left, limit time.Duration) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.mark()
	if b.tooLarge(rest, left) == nil {
		return nil
	}
	if err := b.tooLarge(total, limit); err != nil {
		return err
	}
	return &overloadedError{engine.Errorf(engine.EOVERLOADED,
		"the model embeds about %.0f tokens/s with the work in flight: the rest of this request, %d tokens, would not be done within its time limit; retry later",
		b.rate(), rest), b.wait(b.inflight - rest)}
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
