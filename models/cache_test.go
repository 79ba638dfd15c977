package models_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"
	"weak"

	"github.com/google/go-cmp/cmp"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/models/modeltest"
)

// countingEmbedder embeds a text as a fixed unit vector and records each
// batch it was asked for.
type countingEmbedder struct {
	mu      sync.Mutex
	batches [][]string
	version string
}

func (c *countingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	c.batches = append(c.batches, append([]string(nil), texts...))
	c.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t) % 2), float32((len(t) + 1) % 2)}
	}
	return out, nil
}
func (c *countingEmbedder) Identity() models.Identity {
	return models.Identity{Name: "counting", SHA256: "00" + c.version, Dims: 2}
}
func (c *countingEmbedder) Backend() string { return "counting" }
func (c *countingEmbedder) Close() error    { return nil }
func (c *countingEmbedder) Fit([]string)    { c.version += "1" }

func TestCachedHitsAndMisses(t *testing.T) {
	inner := &countingEmbedder{}
	c := models.NewCached(inner, 3)
	steps := []struct {
		texts       []string
		wantBatch   []string // what reaches the inner embedder; nil for none
		wantEntries int
		wantHits    uint64
		wantMisses  uint64
	}{
		{[]string{"a", "bb", "a"}, []string{"a", "bb"}, 2, 1, 2},
		{[]string{"bb", "a"}, nil, 2, 3, 2},
		{[]string{"ccc", "dddd"}, []string{"ccc", "dddd"}, 3, 3, 4}, // evicts "bb", the least recently used
		{[]string{"bb"}, []string{"bb"}, 3, 3, 5},
		{[]string{"dddd"}, nil, 3, 4, 5},
	}
	for i, s := range steps {
		before := len(inner.batches)
		got := modeltest.MustEmbed(t, c, s.texts)
		for j, text := range s.texts {
			want, _ := inner.Embed(context.Background(), []string{text})
			inner.batches = inner.batches[:len(inner.batches)-1]
			if d := cmp.Diff(want[0], got[j]); d != "" {
				t.Errorf("step %d text %q: %s", i, text, d)
			}
		}
		var batch []string
		if len(inner.batches) > before {
			batch = inner.batches[len(inner.batches)-1]
		}
		if d := cmp.Diff(s.wantBatch, batch); d != "" {
			t.Errorf("step %d: inner batch (-want +got):\n%s", i, d)
		}
		st := c.Stats()
		if st.Entries != s.wantEntries || st.Hits != s.wantHits || st.Misses != s.wantMisses || st.Capacity != 3 {
			t.Errorf("step %d: stats %+v, want entries %d hits %d misses %d", i, st, s.wantEntries, s.wantHits, s.wantMisses)
		}
	}
}

func TestCachedReturnsCopies(t *testing.T) {
	c := models.NewCached(&countingEmbedder{}, 10)
	v := modeltest.MustEmbed(t, c, []string{"x"})
	v[0][0] = 42
	if w := modeltest.MustEmbed(t, c, []string{"x"}); w[0][0] == 42 {
		t.Error("a caller's change to a returned vector reached the cache")
	}
}

func TestCachedFitInvalidates(t *testing.T) {
	inner := &countingEmbedder{}
	c := models.NewCached(inner, 10)
	modeltest.MustEmbed(t, c, []string{"x"})
	c.Fit(nil)
	modeltest.MustEmbed(t, c, []string{"x"})
	if len(inner.batches) != 2 {
		t.Errorf("after Fit the text was embedded %d times in all, want 2", len(inner.batches))
	}
	if st, ok := models.StatsOf(c); !ok || st.Misses != 2 || st.Hits != 0 {
		t.Errorf("StatsOf = %+v, %v", st, ok)
	}
	if _, ok := models.StatsOf(inner); ok {
		t.Error("StatsOf found a cache in an uncached embedder")
	}
}

func TestCachedConcurrent(t *testing.T) {
	c := models.NewCached(lexical.New(256), 4)
	texts := []string{"one", "two", "three", "four", "five", "six"}
	want := modeltest.MustEmbed(t, lexical.New(256), texts)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				k := (g + i) % len(texts)
				got, err := c.Embed(context.Background(), texts[k:])
				if err != nil {
					t.Error(err)
					return
				}
				if d := cmp.Diff(want[k:], got); d != "" {
					t.Errorf("cached result differs:\n%s", d)
					return
				}
			}
		})
	}
	wg.Wait()
}

// A cache is bounded by the bytes of its vectors as well as by its entry
// count: wide lexical vectors get fewer entries.
func TestCachedBoundedByBytes(t *testing.T) {
	lex := lexical.New(4096)
	c := models.NewCached(lex, 10000)
	if want := models.MaxCacheBytes / (4 * 4096); c.Stats().Capacity != want {
		t.Errorf("capacity %d for 4096-dim vectors, want %d", c.Stats().Capacity, want)
	}
	texts := make([]string, 3000)
	for i := range texts {
		texts[i] = "correction number " + strconv.Itoa(i)
	}
	if _, err := c.Embed(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Entries > st.Capacity {
		t.Errorf("%d entries over a capacity of %d", st.Entries, st.Capacity)
	}
	if got := models.NewCached(lexical.New(64), 100).Stats().Capacity; got != 100 {
		t.Errorf("narrow vectors: capacity %d, want the 100 asked for", got)
	}
}

// parityEmbedder embeds a text as one of two unit vectors, by the parity of
// its length, and keeps nothing of it.
type parityEmbedder struct{}

func (parityEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t) % 2), float32((len(t) + 1) % 2)}
	}
	return out, nil
}
func (parityEmbedder) Identity() models.Identity {
	return models.Identity{Name: "parity", SHA256: "01", Dims: 2}
}
func (parityEmbedder) Backend() string { return "parity" }
func (parityEmbedder) Close() error    { return nil }

// The cache keeps no text alive: once the caller drops them, neither a
// 1 MB input nor the 1 MB string a short text was cut from is reachable
// through the entries made for them, and the entries still answer the same
// texts made anew.
func TestCachedKeepsNoText(t *testing.T) {
	c := models.NewCached(parityEmbedder{}, 100)
	big := func(i int) string { return strconv.Itoa(i) + " " + strings.Repeat("a long pasted log line ", 1<<20/23) }
	var held []weak.Pointer[byte]
	for i := range 8 {
		whole := big(i)
		held = append(held, weak.Make(unsafe.StringData(whole)))
		modeltest.MustEmbed(t, c, []string{whole, whole[:40]})
	}
	runtime.GC()
	for i, p := range held {
		if p.Value() != nil {
			t.Errorf("text %d (1 MB) is still reachable after the caller dropped it", i)
		}
	}
	if st := c.Stats(); st.Entries != 16 || st.Misses != 16 {
		t.Fatalf("stats %+v, want 16 entries from 16 misses", st)
	}
	for i := range 8 {
		whole := big(i)
		modeltest.MustEmbed(t, c, []string{whole, whole[:40]})
	}
	if st := c.Stats(); st.Hits != 16 || st.Misses != 16 {
		t.Errorf("stats %+v after the same texts again, want 16 hits", st)
	}
}
