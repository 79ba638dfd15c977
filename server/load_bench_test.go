package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/store"
)

// The load benchmark's model and library: the full-size generated model
// (`make bench-model`) and the ONNX Runtime `make ort` installs.
var (
	benchModelDir = filepath.Join("..", ".cache", "models", "all-MiniLM-L6-v2")
	benchOrtLib   = filepath.Join("..", ".cache", "ort", "libonnxruntime.so.1")
)

// Bounds of one benchmark run, whatever -benchtime asks: the load stays on
// loopback and stops at maxBenchRequests or maxBenchTime.
const (
	benchClients     = 64
	maxBenchRequests = 20000
	maxBenchTime     = 60 * time.Second
)

// benchTexts are distinct corrections, so no request is a cache hit.
func benchTexts(n int) []string {
	verbs := []string{"stop using", "don't run", "please avoid", "never call", "quit using", "no more"}
	tools := []string{"sed on the config files", "npm install in this repo", "grep -r over node_modules", "pip install globally",
		"git push --force on main", "print debugging in the handlers", "emoji in commit messages", "any in typescript types"}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s %s, this is request %d of the load test", verbs[i%len(verbs)], tools[(i/len(verbs))%len(tools)], i)
	}
	return out
}

// benchEnv is the store and ort embedder shared by the sub-benchmarks.
type benchEnv struct {
	db  *store.DB
	emb models.Embedder
}

func openBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	for _, p := range []string{filepath.Join(benchModelDir, "model.onnx"), benchOrtLib} {
		if _, err := os.Stat(p); err != nil {
			b.Skipf("load benchmark needs %s (run `make bench-model` and `make ort`): %v", p, err)
		}
	}
	db := MustOpenStore(b)
	emb, err := auto.Open(context.Background(), models.Options{Backend: "ort", ModelDir: benchModelDir, OrtLib: benchOrtLib, Variant: testenv.ModelVariant(), CacheSize: -1, Logger: discardLogger()})
	if err != nil {
		b.Skipf("load benchmark: the ort embedder does not open: %v", err)
	}
	b.Cleanup(func() { emb.Close() })
	MustAssemble(b, db, emb)
	return &benchEnv{db: db, emb: emb}
}

// BenchmarkHTTPClassifyLoad: 64 concurrent clients on POST /v1/classify over
// loopback with the full-size model, micro-batching on (one and two workers)
// and off, each against the offline batch-32 embedding throughput of the
// same embedder measured just before it (x_offline is the ratio). Run it
// with a bounded count, e.g.
//
//	go test ./server/ -run '^$' -bench HTTPClassifyLoad -benchtime 3000x
func BenchmarkHTTPClassifyLoad(b *testing.B) {
	env := openBenchEnv(b)
	for _, c := range []struct {
		batching bool
		workers  int
	}{{true, 1}, {true, models.DefaultBatcherWorkers}, {false, 0}} {
		name := fmt.Sprintf("clients=%d/batching=off", benchClients)
		if c.batching {
			name = fmt.Sprintf("clients=%d/batching=on/workers=%d", benchClients, c.workers)
		}
		b.Run(name, func(b *testing.B) {
			// The reference, measured right before the load so that both see
			// the same machine: the same kind of texts embedded 32 at a time by
			// one caller, as many as requests will be sent (at most 1024).
			offline := offlineBatch32(b, env, min(b.N, 1024))
			rps, p50, p99, n := runLoad(b, env, c.batching, c.workers)
			b.ReportMetric(rps, "req/s")
			b.ReportMetric(float64(p50.Microseconds())/1000, "p50_ms")
			b.ReportMetric(float64(p99.Microseconds())/1000, "p99_ms")
			b.ReportMetric(offline, "offline_texts/s")
			b.ReportMetric(rps/offline, "x_offline")
			b.Logf("%s: %d requests: %.1f req/s, p50 %v, p99 %v; offline batch-32 %.1f texts/s; ratio %.2f (GOMAXPROCS %d)",
				name, n, rps, p50.Round(time.Millisecond), p99.Round(time.Millisecond), offline, rps/offline, runtime.GOMAXPROCS(0))
		})
	}
}

// offlineBatch32 embeds n texts (rounded up to a multiple of 32) 32 at a
// time, directly, and returns texts per second.
func offlineBatch32(b *testing.B, env *benchEnv, n int) float64 {
	b.Helper()
	ctx := context.Background()
	total := (n + 31) / 32 * 32
	texts := benchTexts(total + 32)
	for i := range texts {
		texts[i] = "offline: " + texts[i] // distinct from the load's texts
	}
	if _, err := env.emb.Embed(ctx, texts[:32]); err != nil { // warm up
		b.Fatal(err)
	}
	start := time.Now()
	for done := 0; done < total; done += 32 {
		if _, err := env.emb.Embed(ctx, texts[32+done:64+done]); err != nil {
			b.Fatal(err)
		}
	}
	return float64(total) / time.Since(start).Seconds()
}

// runLoad serves env on a free loopback port and sends b.N classify
// requests (at most maxBenchRequests, within maxBenchTime) from benchClients
// concurrent clients. It returns throughput and latency percentiles.
func runLoad(b *testing.B, env *benchEnv, batching bool, workers int) (rps float64, p50, p99 time.Duration, sent int) {
	s, err := New(Config{Addr: "127.0.0.1:0", Memory: memoryOver(env.db, classifier.Options{CalibrationDir: b.TempDir()}, new(func() time.Time)),
		Embedder: env.emb, NoBatching: !batching, BatchWorkers: workers, Logger: discardLogger(), QueueSize: 4096})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: s.Handler()}
	go srv.Serve(s.ln)
	defer func() { srv.Close(); s.Close() }()
	base := "http://" + s.Addr() + "/v1/classify"
	tr := &http.Transport{MaxIdleConns: benchClients, MaxIdleConnsPerHost: benchClients, MaxConnsPerHost: benchClients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	n := min(b.N, maxBenchRequests)
	texts := benchTexts(n)
	// Warm up: one request per client, so connections exist and the index is built.
	var wg sync.WaitGroup
	for i := range benchClients {
		wg.Go(func() { classifyOnce(b, client, base, fmt.Sprintf("warm-up request %d about sed", i)) })
	}
	wg.Wait()

	var next atomic.Int64
	lat := make([]time.Duration, n)
	deadline := time.Now().Add(maxBenchTime)
	b.ResetTimer()
	start := time.Now()
	for range benchClients {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || time.Now().After(deadline) {
					return
				}
				t0 := time.Now()
				classifyOnce(b, client, base, texts[i])
				lat[i] = time.Since(t0)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	done := slices.DeleteFunc(lat, func(d time.Duration) bool { return d == 0 })
	slices.Sort(done)
	if len(done) == 0 {
		b.Fatal("no request completed")
	}
	return float64(len(done)) / elapsed.Seconds(), done[len(done)/2], done[len(done)*99/100], len(done)
}

func classifyOnce(b *testing.B, c *http.Client, url, text string) {
	resp, err := c.Post(url, "application/json", strings.NewReader(`{"text":"`+text+`"}`))
	if err != nil {
		b.Error(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Errorf("status %d: %s", resp.StatusCode, body)
	}
}
