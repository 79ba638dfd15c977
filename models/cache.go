package models

import (
	"container/list"
	"context"
	"crypto/sha256"
	"slices"
	"sync"
	"sync/atomic"
)

// DefaultCacheSize is the number of embeddings Open keeps in its LRU cache.
const DefaultCacheSize = 10000

// CacheStats are a Cached embedder's counters, for metrics.
type CacheStats struct {
	Hits     uint64 `json:"hits"`     // texts answered from the cache
	Misses   uint64 `json:"misses"`   // texts the wrapped embedder had to embed
	Entries  int    `json:"entries"`  // embeddings held now
	Capacity int    `json:"capacity"` // most embeddings held
}

// Cached wraps an Embedder with an LRU cache of embeddings keyed by (model
// identity ID, SHA-256 of the text), so a model or IDF change never serves
// stale vectors and no text is kept: an entry holds its vector and 32 bytes
// of digest whatever the length of the text (a key of the text itself would
// keep a megabyte input alive, or the whole request a short text was cut
// from). Misses of one call are embedded in a single batch, each distinct
// text once. Returned vectors are copies. It is safe for concurrent use and
// implements Fitter by forwarding to the wrapped embedder (a no-op if it is
// not one).
type Cached struct {
	inner        Embedder
	capacity     int
	mu           sync.Mutex
	ll           *list.List // front = most recently used; values are *cacheEntry
	items        map[cacheKey]*list.Element
	hits, misses atomic.Uint64
}

// cacheKey is an entry's key: the model identity ID (the embedder's own
// string, never a request's) and the digest of the text.
type cacheKey struct {
	model string
	text  [sha256.Size]byte
}

func keyOf(model, text string) cacheKey { return cacheKey{model, sha256.Sum256([]byte(text))} }

type cacheEntry struct {
	key cacheKey
	vec []float32
}

// MaxCacheBytes bounds the vector bytes a cache holds: its capacity in
// entries is at most MaxCacheBytes / (4 × dims), e.g. 21,845 MiniLM vectors
// (so the default 10,000 stands) or 2,048 lexical ones.
const MaxCacheBytes = 32 << 20

// NewCached wraps e with a cache of size entries (DefaultCacheSize when size
// <= 0), at most MaxCacheBytes of vectors.
func NewCached(e Embedder, size int) *Cached {
	if size <= 0 {
		size = DefaultCacheSize
	}
	// Bound the vectors held, not just their count: 10,000 lexical vectors
	// of 4,096 dims would hold 160 MiB (and twice that in RSS).
	if d := e.Identity().Dims; d > 0 {
		size = max(1, min(size, MaxCacheBytes/(4*d)))
	}
	return &Cached{inner: e, capacity: size, ll: list.New(), items: make(map[cacheKey]*list.Element)}
}

// Embed implements Embedder; errors are the wrapped embedder's, with text
// indexes as in the wrapped call (which only sees the misses).
func (c *Cached) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	model := c.inner.Identity().ID()
	out := make([][]float32, len(texts))
	keys := make([]cacheKey, len(texts))
	for i, t := range texts {
		keys[i] = keyOf(model, t)
	}
	var missTexts []string
	var missKeys []cacheKey
	missAt := map[cacheKey][]int{}
	c.mu.Lock()
	for i, k := range keys {
		if el, ok := c.items[k]; ok {
			c.ll.MoveToFront(el)
			out[i] = slices.Clone(el.Value.(*cacheEntry).vec)
			continue
		}
		if _, dup := missAt[k]; !dup {
			missTexts = append(missTexts, texts[i])
			missKeys = append(missKeys, k)
		}
		missAt[k] = append(missAt[k], i)
	}
	c.mu.Unlock()
	c.hits.Add(uint64(len(texts) - len(missTexts)))
	c.misses.Add(uint64(len(missTexts)))
	if len(missTexts) == 0 {
		return out, nil
	}
	vecs, err := c.inner.Embed(ctx, missTexts)
	if err != nil {
		return nil, err
	}
	// The identity may have changed during the call (a Fit): key the new
	// vectors by the identity they were computed under only if it did not.
	store := c.inner.Identity().ID() == model
	c.mu.Lock()
	defer c.mu.Unlock()
	for j, k := range missKeys {
		for _, i := range missAt[k] {
			out[i] = slices.Clone(vecs[j])
		}
		if store {
			c.put(k, slices.Clone(vecs[j])) // a vector of its own, not a view of the model's output
		}
	}
	return out, nil
}

// put adds or refreshes an entry, evicting the least recently used. Callers hold c.mu.
func (c *Cached) put(k cacheKey, v []float32) {
	if el, ok := c.items[k]; ok {
		el.Value.(*cacheEntry).vec = v
		c.ll.MoveToFront(el)
		return
	}
	c.items[k] = c.ll.PushFront(&cacheEntry{key: k, vec: v})
	for c.ll.Len() > c.capacity {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).key)
	}
}

// Stats returns the hit and miss counters and the current size.
func (c *Cached) Stats() CacheStats {
	c.mu.Lock()
	n := c.ll.Len()
	c.mu.Unlock()
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Entries: n, Capacity: c.capacity}
}

// Fit forwards to the wrapped embedder when it is a Fitter. Entries keyed by
// the old identity are dropped.
func (c *Cached) Fit(texts []string) {
	f, ok := c.inner.(Fitter)
	if !ok {
		return
	}
	f.Fit(texts)
	c.mu.Lock()
	c.ll.Init()
	clear(c.items)
	c.mu.Unlock()
}

// Unwrap returns the wrapped embedder.
func (c *Cached) Unwrap() Embedder { return c.inner }

func (c *Cached) Identity() Identity { return c.inner.Identity() }
func (c *Cached) Backend() string    { return c.inner.Backend() }
func (c *Cached) Close() error       { return c.inner.Close() }

// StatsOf returns e's cache counters when e is (or wraps) a Cached embedder.
func StatsOf(e Embedder) (CacheStats, bool) {
	if c, ok := As[*Cached](e); ok {
		return c.Stats(), true
	}
	return CacheStats{}, false
}
