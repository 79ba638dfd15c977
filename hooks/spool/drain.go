package spool

import (
	"context"
	"errors"
	"time"
)

// ErrRefused wraps a delivery error that retrying cannot fix (the receiver
// says the item is invalid): Drain moves such an item to failed/.
var ErrRefused = errors.New("refused")

// Deliver hands one item to its receiver. It returns nil once the receiver
// recorded it (or had recorded its key before), an error wrapping
// ErrRefused when the item can never be recorded, any other error when it
// may be later.
type Deliver func(ctx context.Context, it Item) error

// Drain delivers the waiting items, oldest first, while holding the
// spool's lock; a drain already running elsewhere is left to do it (Drain
// returns 0, nil at once). After releasing the lock it looks again, so an
// item put while it held the lock is never left behind by both. It stops
// at the first transient error (recorded for LastError) and returns it;
// the items from there on wait for the next drain. It returns how many it
// delivered.
func (s *Spool) Drain(ctx context.Context, deliver Deliver) (int, error) {
	return s.drain(ctx, deliver, false)
}

// DrainWait is Drain that waits, while ctx lasts, for a drain running
// elsewhere to end instead of leaving the work to it: when it returns,
// no drain of this spool that had started is still running.
func (s *Spool) DrainWait(ctx context.Context, deliver Deliver) (int, error) {
	return s.drain(ctx, deliver, true)
}

func (s *Spool) drain(ctx context.Context, deliver Deliver, wait bool) (int, error) {
	total := 0
	for {
		unlock, ok, err := s.tryLock()
		for wait && err == nil && !ok {
			select {
			case <-ctx.Done():
				return total, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
			unlock, ok, err = s.tryLock()
		}
		if err != nil || !ok {
			return total, err
		}
		n, err := s.drainLocked(ctx, deliver)
		unlock()
		total += n
		if err != nil {
			s.NoteError(err, time.Now())
			return total, err
		}
		if d, err := s.Depth(); err != nil || d == 0 {
			if err == nil {
				s.ClearError()
			}
			return total, err
		}
	}
}

func (s *Spool) drainLocked(ctx context.Context, deliver Deliver) (int, error) {
	items, err := s.Items()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		err := deliver(ctx, it)
		switch {
		case errors.Is(err, ErrRefused):
			if err := s.Fail(it.Key, err.Error()); err != nil {
				return n, err
			}
		case err != nil:
			return n, err
		default:
			if err := s.Done(it.Key); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}
