package models

import (
	"context"
	"sync"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// Batcher defaults (its MaxBatch defaults to DefaultMaxBatch).
const (
	DefaultBatcherWait  = 2 * time.Millisecond
	DefaultBatcherQueue = 1024
	// DefaultBatcherWorkers is how many batches run at once: two, so that one
	// batch's tokenisation and pooling overlap the other's model run (on a
	// 2-core machine this nearly doubles HTTP throughput over one worker).
	DefaultBatcherWorkers = 2
)

// BatcherOptions configure a Batcher; zero fields take the defaults.
type BatcherOptions struct {
	MaxBatch  int           // most texts per model call (DefaultMaxBatch, 32)
	MaxWait   time.Duration // how long a batch waits to fill after its first text (2 ms); < 0 means no wait
	QueueSize int           // most Embed calls waiting (1024); past it Embed fails with EOVERLOADED
	Workers   int           // model calls run at once (DefaultBatcherWorkers, 2)
	// Observe, when set, is told the size of every model call and how long each
	// request waited in the queue before its batch started.
	Observe func(batchTexts int, queueWait []time.Duration)
}

// Batcher is an Embedder that coalesces concurrent Embed calls into
// one model call: it takes queued calls until MaxBatch texts are gathered or
// MaxWait has passed since the first, embeds them together, and hands each
// caller its vectors. A call with more than MaxBatch texts goes straight to
// the wrapped embedder (which sub-batches it itself). The queue is bounded:
// when QueueSize calls are waiting, Embed fails at once with EOVERLOADED. Close
// stops taking calls (EUNAVAILABLE), finishes every queued one and returns.
type Batcher struct {
	inner Embedder
	opts  BatcherOptions
	queue chan *batchReq

	mu     sync.RWMutex // guards closed against sends on a closed queue
	closed bool
	wg     sync.WaitGroup
}

type batchReq struct {
	ctx      context.Context
	texts    []string
	enqueued time.Time
	done     chan batchResp // buffered 1: the worker never blocks on it
}

type batchResp struct {
	vecs [][]float32
	err  error
}

// NewBatcher starts a Batcher over inner.
func NewBatcher(inner Embedder, o BatcherOptions) *Batcher {
	if o.MaxBatch <= 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	if o.MaxWait == 0 {
		o.MaxWait = DefaultBatcherWait
	}
	if o.QueueSize <= 0 {
		o.QueueSize = DefaultBatcherQueue
	}
	if o.Workers <= 0 {
		o.Workers = DefaultBatcherWorkers
	}
	b := &Batcher{inner: inner, opts: o, queue: make(chan *batchReq, o.QueueSize)}
	b.wg.Add(o.Workers)
	for range o.Workers {
		go b.worker()
	}
	return b
}

// Embed implements Embedder. Errors: the wrapped embedder's (with text
// indexes of this call), EOVERLOADED when the queue is full, EUNAVAILABLE
// after Close or when ctx ends first.
func (b *Batcher) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	if len(texts) > b.opts.MaxBatch {
		return b.inner.Embed(ctx, texts)
	}
	r := &batchReq{ctx: ctx, texts: texts, enqueued: time.Now(), done: make(chan batchResp, 1)}
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return nil, engine.Errorf(engine.EUNAVAILABLE, "the embedder is shutting down")
	}
	select {
	case b.queue <- r:
	default:
		b.mu.RUnlock()
		return nil, engine.Errorf(engine.EOVERLOADED, "the embedding queue is full (%d requests waiting): retry later", b.opts.QueueSize)
	}
	b.mu.RUnlock()
	select {
	case resp := <-r.done:
		return resp.vecs, resp.err
	case <-ctx.Done():
		return nil, engine.Errorf(engine.EUNAVAILABLE, "embedding cancelled: %v", ctx.Err())
	}
}

// QueueLen is the number of calls waiting now.
func (b *Batcher) QueueLen() int { return len(b.queue) }

// Close stops accepting calls, embeds every queued one and waits for the
// workers. It does not close the wrapped embedder. It is safe to call twice.
func (b *Batcher) Close() error {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.queue)
	}
	b.mu.Unlock()
	b.wg.Wait()
	return nil
}

// Identity, Backend and Unwrap forward to the wrapped embedder.
func (b *Batcher) Identity() Identity { return b.inner.Identity() }
func (b *Batcher) Backend() string    { return b.inner.Backend() }
func (b *Batcher) Unwrap() Embedder   { return b.inner }

// Fit forwards to the wrapped embedder when it is a Fitter (the
// lexical embedder's IDF), so that wrapping does not hide it.
func (b *Batcher) Fit(texts []string) {
	if f, ok := b.inner.(Fitter); ok {
		f.Fit(texts)
	}
}

// worker gathers batches from the queue until it is closed and drained.
func (b *Batcher) worker() {
	defer b.wg.Done()
	var carry *batchReq // a call that did not fit the previous batch
	for {
		first := carry
		carry = nil
		if first == nil {
			var ok bool
			if first, ok = <-b.queue; !ok {
				return
			}
		}
		batch := []*batchReq{first}
		n := len(first.texts)
		var timer *time.Timer
		var deadline <-chan time.Time
		if b.opts.MaxWait > 0 {
			timer = time.NewTimer(b.opts.MaxWait)
			deadline = timer.C
		}
	gather:
		for n < b.opts.MaxBatch {
			var r *batchReq
			var ok bool
			select {
			case r, ok = <-b.queue:
			default:
				if deadline == nil {
					break gather
				}
				select {
				case r, ok = <-b.queue:
				case <-deadline:
					break gather
				}
			}
			if !ok {
				break gather
			}
			if n+len(r.texts) > b.opts.MaxBatch {
				carry = r
				break gather
			}
			batch = append(batch, r)
			n += len(r.texts)
		}
		if timer != nil {
			timer.Stop()
		}
		b.run(batch)
	}
}

// run embeds one batch and answers its callers. Callers that gave up are
// skipped. When the combined call fails, each call is retried alone, so that
// one bad text fails only its own request (with its own text indexes).
func (b *Batcher) run(batch []*batchReq) {
	live := batch[:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.done <- batchResp{err: engine.Errorf(engine.EUNAVAILABLE, "embedding cancelled: %v", err)}
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	start := time.Now()
	texts := make([]string, 0, b.opts.MaxBatch)
	waits := make([]time.Duration, len(live))
	for i, r := range live {
		texts = append(texts, r.texts...)
		waits[i] = start.Sub(r.enqueued)
	}
	if b.opts.Observe != nil {
		b.opts.Observe(len(texts), waits)
	}
	if len(live) == 1 {
		vecs, err := b.inner.Embed(live[0].ctx, texts)
		live[0].done <- batchResp{vecs, err}
		return
	}
	// The combined call belongs to no single caller: it is not cancelled
	// when one of them goes away.
	ctx := context.WithoutCancel(live[0].ctx)
	vecs, err := b.inner.Embed(ctx, texts)
	if err != nil || len(vecs) != len(texts) {
		for _, r := range live {
			v, err := b.inner.Embed(r.ctx, r.texts)
			r.done <- batchResp{v, err}
		}
		return
	}
	off := 0
	for _, r := range live {
		r.done <- batchResp{vecs: vecs[off : off+len(r.texts) : off+len(r.texts)]}
		off += len(r.texts)
	}
}
