package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	rtmetrics "runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/hooks"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
)

// The soak's traffic: soakClients at once; the warm-up is the first
// soakWarmup of the calls, or as many calls as the embedding cache holds
// entries when that is more; then the memory is sampled soakSamples times.
const (
	soakClients = 8
	soakWarmup  = 0.1
	soakSamples = 100
)

// BenchmarkSoak: b.N calls of mixed traffic against a server running on
// loopback in this process (Run: the product's listener and timeouts) with
// the product's embedding cache: half UserPromptSubmit events on the hook
// route with prompts from 1 KB to 200 KB, a quarter classify calls, a
// quarter /v1/embeddings calls of one 8 KB to 200 KB input, every text
// distinct. After the warm-up (the index built, the bounded caches full),
// the clients are paused soakSamples times for a GC, and the heap it
// leaves (what the server retains: heap_MB, the median) and the process's
// RSS (rss_MB, the greatest) are read. Each series' growth is the median
// of its last fifth over the median of its first fifth, less one, in
// percent (heap_growth_%, rss_growth_%: "flat within 10%" reads as a
// growth under 10); its spread is (max − min) / min. Refused calls (429)
// are counted in refused/op and are not errors. On two cores the lexical
// embedder runs 100,000 calls in about 13 minutes (25 when the cores are
// shared); the real model (ort, skipped without it) takes about 90 ms a
// call, so give it fewer (its warm-up, 10,000 calls, fills its cache):
//
//	go test ./server -run '^$' -bench 'Soak/embedder=lexical' -benchtime 100000x -timeout 90m
//	go test ./server -run '^$' -bench 'Soak/embedder=ort' -benchtime 15000x -timeout 90m
func BenchmarkSoak(b *testing.B) {
	for _, backend := range []string{"lexical", "ort"} {
		b.Run("embedder="+backend, func(b *testing.B) {
			base, emb := soakServer(b, backend)
			warm := int64(float64(b.N) * soakWarmup)
			if st, ok := models.StatsOf(emb); ok {
				warm = max(warm, int64(st.Capacity))
			}
			if warm >= int64(b.N) && b.N > 1 {
				b.Logf("%d calls end within the warm-up of %d: nothing is sampled", b.N, warm)
			}
			s := runSoak(b, base, min(warm, int64(b.N)-1))
			b.ReportMetric(s.heap.median, "heap_MB")
			b.ReportMetric(s.heap.growth, "heap_growth_%")
			b.ReportMetric(s.heap.spread, "heap_spread_%")
			b.ReportMetric(s.rss.hi, "rss_MB")
			b.ReportMetric(s.rss.growth, "rss_growth_%")
			b.ReportMetric(s.rss.spread, "rss_spread_%")
			b.ReportMetric(float64(s.refused)/float64(b.N), "refused/op")
			b.Logf("%s: %d calls in %s (%d refused, warm-up %d calls); retained heap %s; RSS %s",
				backend, b.N, s.took.Round(time.Second), s.refused, warm, s.heap, s.rss)
		})
	}
}

// soakServer runs a server on a free loopback port over a new store readied
// with the backend's embedder, cached as `lexsona serve` caches it, and
// returns its base URL and the embedder.
func soakServer(b *testing.B, backend string) (string, models.Embedder) {
	b.Helper()
	db := MustOpenStore(b)
	var emb models.Embedder
	if backend == "lexical" {
		emb = MustLexical(b, db)
	} else {
		lib := testenv.ORTLib()
		if lib == "" {
			lib = benchOrtLib
		}
		var err error
		emb, err = auto.Open(context.Background(), models.Options{Backend: "ort", ModelDir: testenv.RealModelDir(b), OrtLib: lib, Logger: discardLogger()})
		if err != nil {
			testenv.RealModelMissing(b, "the ort embedder does not open the real model: %v", err)
		}
		b.Cleanup(func() { emb.Close() })
		MustAssemble(b, db, emb)
	}
	s, err := New(Config{Addr: "127.0.0.1:0", Memory: memoryOver(db, classifier.Options{CalibrationDir: b.TempDir()}, new(func() time.Time)),
		Embedder: emb, Logger: discardLogger()})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("Run: %v", err)
		}
	})
	return "http://" + s.Addr(), emb
}

// soakStats are a soak run's samples and refusals.
type soakStats struct {
	heap, rss series
	refused   int64
	took      time.Duration
}

// runSoak sends b.N calls (soakCall) from soakClients clients and, after
// the first warm calls, samples the memory with the clients paused.
func runSoak(b *testing.B, base string, warm int64) soakStats {
	tr := &http.Transport{MaxIdleConns: soakClients, MaxIdleConnsPerHost: soakClients, MaxConnsPerHost: soakClients}
	b.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	corpus := newSoakCorpus()
	every := max(1, (int64(b.N)-warm)/soakSamples)
	var (
		next, refused atomic.Int64
		pause         sync.RWMutex // a call holds it shared; a sample, alone
		heap, rss     []float64
		wg            sync.WaitGroup
	)
	b.ResetTimer()
	start := time.Now()
	for range soakClients {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) || b.Failed() {
					return
				}
				pause.RLock()
				ok := soakCall(b, client, base, corpus, int(i))
				pause.RUnlock()
				if !ok {
					refused.Add(1)
				}
				if i >= warm && (i-warm)%every == 0 {
					pause.Lock()
					runtime.GC()
					heap, rss = append(heap, liveHeapMB()), append(rss, rssMB())
					pause.Unlock()
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	return soakStats{heap: newSeries(heap), rss: newSeries(rss), refused: refused.Load(), took: time.Since(start)}
}

// series summarises samples in MB: the first, last, least, greatest and
// median; growth, the median of the last fifth over that of the first
// fifth, less one, and spread, (max − min) / min, both in percent.
type series struct {
	first, last, lo, hi, median, growth, spread float64
}

func newSeries(xs []float64) series {
	if len(xs) == 0 {
		return series{}
	}
	med := func(xs []float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[len(s)/2]
	}
	fifth := max(1, len(xs)/5)
	s := series{first: xs[0], last: xs[len(xs)-1], lo: slices.Min(xs), hi: slices.Max(xs), median: med(xs)}
	if early := med(xs[:fifth]); early > 0 {
		s.growth = (med(xs[len(xs)-fifth:])/early - 1) * 100
	}
	if s.lo > 0 {
		s.spread = (s.hi - s.lo) / s.lo * 100
	}
	return s
}

func (s series) String() string {
	return fmt.Sprintf("%.1f → %.1f MB (%.1f–%.1f, median %.1f, growth %.1f%%, spread %.1f%%)", s.first, s.last, s.lo, s.hi, s.median, s.growth, s.spread)
}

// soakCall sends call i of the mix and reports false when it was refused
// (429); any other answer but a success fails the benchmark.
func soakCall(b *testing.B, client *http.Client, base string, c *soakCorpus, i int) bool {
	var path, body string
	switch i % 4 {
	case 0, 2:
		path = hooks.HTTPRoute
		body = `{"session_id":"soak","cwd":"/tmp/soak","hook_event_name":"UserPromptSubmit","prompt":"` + c.text(i, soakHookSizes) + `"}`
	case 1:
		path, body = "/v1/classify", `{"text":"`+c.text(i, soakClassifySizes)+`"}`
	case 3:
		path, body = "/v1/embeddings", `{"input":"`+c.text(i, soakEmbedSizes)+`"}`
	}
	resp, err := client.Post(base+path, "application/json", strings.NewReader(body))
	if err != nil {
		b.Errorf("call %d (%s): %v", i, path, err)
		return true
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK, http.StatusNoContent:
		return true
	case http.StatusTooManyRequests:
		return false
	}
	b.Errorf("call %d (%s, %d bytes): status %d: %.300s", i, path, len(body), resp.StatusCode, data)
	return true
}

// The sizes of the soak's texts, in bytes, cycled through.
var (
	soakHookSizes     = []int{1 << 10, 6 << 10, 24 << 10, 64 << 10, 120 << 10, 200 << 10}
	soakClassifySizes = []int{300, 2 << 10, 8 << 10}
	soakEmbedSizes    = []int{8 << 10, 50 << 10, 200 << 10}
)

// soakCorpus is a long text of log and code lines (as pasted into prompts),
// already escaped for a JSON string, and where its lines end.
type soakCorpus struct {
	escaped string
	ends    []int // offsets in escaped just past each line's \n
}

func newSoakCorpus() *soakCorpus {
	words := strings.Fields("the build fails in the pricing service when the cart total is recomputed after a coupon is applied and " +
		"the handler returns stale data from the cache layer because the invalidation hook never runs on retries")
	var sb strings.Builder
	c := &soakCorpus{}
	for line := 0; sb.Len() < 210<<10; line++ {
		fmt.Fprintf(&sb, "    at step %d:", line)
		for w := range 8 + line%9 {
			sb.WriteString(" " + words[(line*7+w*3)%len(words)])
		}
		sb.WriteString(`\n`)
		c.ends = append(c.ends, sb.Len())
	}
	c.escaped = sb.String()
	return c
}

// text is a distinct JSON-escaped text for call i of about sizes[i /
// 4 % len(sizes)] bytes: the call's number, then whole lines of the corpus.
func (c *soakCorpus) text(i int, sizes []int) string {
	want := sizes[i/4%len(sizes)]
	end := c.ends[0]
	for _, e := range c.ends {
		if e > want {
			break
		}
		end = e
	}
	return fmt.Sprintf("request %d: please look at this. ", i) + c.escaped[:end]
}

// liveHeapMB is the heap the last GC found live, in MB.
func liveHeapMB() float64 {
	s := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	rtmetrics.Read(s)
	return float64(s[0].Value.Uint64()) / (1 << 20)
}

// rssMB is the process's resident set, in MB (0 where /proc/self/statm is
// not there to read it).
func rssMB() float64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return float64(pages*int64(os.Getpagesize())) / (1 << 20)
}
