package models

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// batchProbe is a test-only embedder: the vector of text "t<N>" is
// [N, 1] (not normalised; the batcher does not care). It counts model calls
// and texts, records the largest call, can take a while per call, and fails
// any call holding the text "bad".
type batchProbe struct {
	delay    time.Duration
	calls    atomic.Int64
	texts    atomic.Int64
	maxBatch atomic.Int64
	gate     chan struct{} // when set, each call waits for a token
	entered  chan struct{} // when set, each call signals it started
}

func (f *batchProbe) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.calls.Add(1)
	f.texts.Add(int64(len(texts)))
	for {
		m := f.maxBatch.Load()
		if int64(len(texts)) <= m || f.maxBatch.CompareAndSwap(m, int64(len(texts))) {
			break
		}
	}
	if f.entered != nil {
		f.entered <- struct{}{}
	}
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if t == "bad" {
			return nil, engine.Errorf(engine.EINVALID, "text %d is bad", i)
		}
		n, _ := strconv.Atoi(t[1:])
		out[i] = []float32{float32(n), 1}
	}
	return out, nil
}

func (f *batchProbe) Identity() Identity {
	return Identity{Name: "counting", SHA256: "00", Dims: 2}
}
func (f *batchProbe) Backend() string { return "test" }
func (f *batchProbe) Close() error    { return nil }

func TestBatcherCoalesces(t *testing.T) {
	inner := &batchProbe{delay: 2 * time.Millisecond}
	var observed atomic.Int64
	b := NewBatcher(inner, BatcherOptions{MaxBatch: 8, MaxWait: 5 * time.Millisecond,
		Observe: func(n int, waits []time.Duration) { observed.Add(int64(n)) }})
	defer b.Close()
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			v, err := b.Embed(t.Context(), []string{fmt.Sprint("t", i)})
			if err == nil && (len(v) != 1 || v[0][0] != float32(i)) {
				err = fmt.Errorf("caller %d got %v", i, v)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	calls := inner.calls.Load()
	t.Logf("%d concurrent calls of 1 text → %d model calls (largest %d texts)", n, calls, inner.maxBatch.Load())
	if calls >= n/2 {
		t.Errorf("%d model calls for %d concurrent requests: not coalesced", calls, n)
	}
	if m := inner.maxBatch.Load(); m > 8 {
		t.Errorf("a model call had %d texts, over MaxBatch 8", m)
	}
	if inner.texts.Load() != n || observed.Load() != n {
		t.Errorf("texts embedded %d, observed %d, want %d", inner.texts.Load(), observed.Load(), n)
	}
}

func TestBatcherMultiTextCalls(t *testing.T) {
	inner := &batchProbe{}
	b := NewBatcher(inner, BatcherOptions{MaxBatch: 4})
	defer b.Close()
	// 3 + 3 do not fit one batch of 4: each caller still gets exactly its own vectors.
	var wg sync.WaitGroup
	for k := range 8 {
		wg.Go(func() {
			in := []string{fmt.Sprint("t", 3*k), fmt.Sprint("t", 3*k+1), fmt.Sprint("t", 3*k+2)}
			v, err := b.Embed(t.Context(), in)
			if err != nil || len(v) != 3 || v[0][0] != float32(3*k) || v[2][0] != float32(3*k+2) {
				t.Errorf("caller %d: %v %v", k, v, err)
			}
		})
	}
	wg.Wait()
	// More than MaxBatch texts go straight through, in one call.
	before := inner.calls.Load()
	texts := make([]string, 10)
	for i := range texts {
		texts[i] = fmt.Sprint("t", i)
	}
	v, err := b.Embed(t.Context(), texts)
	if err != nil || len(v) != 10 || v[9][0] != 9 || inner.calls.Load() != before+1 {
		t.Errorf("large call: %v %v, %d calls", v, err, inner.calls.Load()-before)
	}
	if v, err := b.Embed(t.Context(), nil); err != nil || len(v) != 0 {
		t.Errorf("empty call: %v %v", v, err)
	}
}

func TestBatcherErrorIsolation(t *testing.T) {
	inner := &batchProbe{gate: make(chan struct{}), entered: make(chan struct{}, 16)}
	b := NewBatcher(inner, BatcherOptions{MaxBatch: 8, MaxWait: 20 * time.Millisecond, Workers: 1})
	defer b.Close()
	// Block the worker on a first call so the next three queue into one batch.
	first := make(chan error, 1)
	go func() { _, err := b.Embed(t.Context(), []string{"t0"}); first <- err }()
	<-inner.entered
	results := make([]error, 3)
	var wg sync.WaitGroup
	for i, text := range []string{"t1", "bad", "t3"} {
		wg.Go(func() {
			v, err := b.Embed(t.Context(), []string{text})
			if err == nil && fmt.Sprint("t", v[0][0]) != text {
				err = fmt.Errorf("%s got the vector of t%v", text, v[0][0])
			}
			results[i] = err
		})
	}
	for b.QueueLen() < 3 {
		time.Sleep(time.Millisecond)
	}
	close(inner.gate) // release everything
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if results[0] != nil || results[2] != nil {
		t.Errorf("good texts failed with a bad neighbour: %v, %v", results[0], results[2])
	}
	if engine.ErrorCode(results[1]) != engine.EINVALID || engine.ErrorMessage(results[1]) != "text 0 is bad" {
		t.Errorf("bad text: %v (its index must be its own request's)", results[1])
	}
}

func TestBatcherOverloaded(t *testing.T) {
	inner := &batchProbe{gate: make(chan struct{}), entered: make(chan struct{}, 16)}
	b := NewBatcher(inner, BatcherOptions{MaxBatch: 1, MaxWait: -1, QueueSize: 2, Workers: 1})
	defer b.Close()
	var wg sync.WaitGroup
	wg.Go(func() { b.Embed(t.Context(), []string{"t0"}) })
	<-inner.entered // the worker is busy
	for i := range 2 {
		wg.Go(func() { b.Embed(t.Context(), []string{fmt.Sprint("t", i+1)}) })
	}
	for b.QueueLen() < 2 {
		time.Sleep(time.Millisecond)
	}
	_, err := b.Embed(t.Context(), []string{"t9"})
	if engine.ErrorCode(err) != engine.EOVERLOADED {
		t.Errorf("a call past the queue: %v, want overloaded", err)
	}
	close(inner.gate)
	wg.Wait()
}

func TestBatcherCancelledCaller(t *testing.T) {
	inner := &batchProbe{gate: make(chan struct{}), entered: make(chan struct{}, 16)}
	b := NewBatcher(inner, BatcherOptions{MaxBatch: 1, MaxWait: -1, Workers: 1})
	defer b.Close()
	go b.Embed(t.Context(), []string{"t0"})
	<-inner.entered
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { _, err := b.Embed(ctx, []string{"t1"}); done <- err }()
	for b.QueueLen() < 1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; engine.ErrorCode(err) != engine.EUNAVAILABLE {
		t.Errorf("cancelled caller: %v", err)
	}
	close(inner.gate)
	// The worker skips the cancelled call: only t0 reached the model.
	b.Close()
	if inner.texts.Load() != 1 {
		t.Errorf("%d texts embedded, want 1 (the cancelled call skipped)", inner.texts.Load())
	}
}

// TestBatcherCloseDrains: Close answers every call queued before it with
// its own vectors, refuses calls after it, and returns only once the queue
// is drained.
func TestBatcherCloseDrains(t *testing.T) {
	inner := &batchProbe{gate: make(chan struct{}), entered: make(chan struct{}, 16)}
	b := NewBatcher(inner, BatcherOptions{MaxBatch: 2, MaxWait: -1, Workers: 1})
	// A queued call that is never answered fails when this context ends,
	// instead of hanging the test.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	const n = 7
	results := make([]chan error, n)
	call := func(i int) {
		results[i] = make(chan error, 1)
		go func() {
			v, err := b.Embed(ctx, []string{fmt.Sprint("t", i)})
			if err == nil && (len(v) != 1 || v[0][0] != float32(i)) {
				err = fmt.Errorf("got %v", v)
			}
			results[i] <- err
		}()
	}
	call(0)
	<-inner.entered // the only worker is busy with call 0
	for i := 1; i < n; i++ {
		call(i)
	}
	for b.QueueLen() < n-1 {
		time.Sleep(time.Millisecond)
	}
	closed := make(chan error, 1)
	go func() { closed <- b.Close() }()
	for !closing(b) {
		time.Sleep(time.Millisecond)
	}
	if _, err := b.Embed(ctx, []string{"t99"}); engine.ErrorCode(err) != engine.EUNAVAILABLE || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("Embed after Close: %v, want EUNAVAILABLE shutting down", err)
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) with %d calls still queued", err, b.QueueLen())
	default:
	}
	close(inner.gate) // let the worker drain the queue
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	for i, r := range results {
		if err := <-r; err != nil {
			t.Errorf("call %d, queued before Close: %v", i, err)
		}
	}
	if got := inner.texts.Load(); got != n {
		t.Errorf("%d texts embedded, want the %d queued before Close", got, n)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// closing reports whether Close has been called on b.
func closing(b *Batcher) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.closed
}
