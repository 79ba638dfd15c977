package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/hooks"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
)

// hookBenchServer serves the hook route over loopback, in this process, with
// the default registry synced through emb.
func hookBenchServer(b *testing.B, emb models.Embedder) *httptest.Server {
	b.Helper()
	db := MustOpenStore(b)
	MustAssemble(b, db, emb)
	srv, err := New(Config{Memory: memoryOver(db, classifier.Options{CalibrationDir: b.TempDir()}, new(func() time.Time)),
		Embedder: emb, Logger: discardLogger()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv.Handler())
	b.Cleanup(ts.Close)
	return ts
}

// hookBenchEmbedder opens the embedder a sub-benchmark names: the lexical
// one, or ort over the real all-MiniLM-L6-v2 (testenv.RealModelDir) without
// an embedding cache, so that every prompt runs the model.
func hookBenchEmbedder(b *testing.B, backend string) models.Embedder {
	b.Helper()
	if backend == "lexical" {
		return MustLexical(b, MustOpenStore(b))
	}
	lib := testenv.ORTLib()
	if lib == "" {
		lib = benchOrtLib
	}
	emb, err := auto.Open(context.Background(), models.Options{Backend: "ort", ModelDir: testenv.RealModelDir(b),
		OrtLib: lib, CacheSize: -1, Logger: discardLogger()})
	if err != nil {
		testenv.RealModelMissing(b, "the ort embedder does not open the real model: %v", err)
	}
	b.Cleanup(func() { emb.Close() })
	return emb
}

// benchPrompts are UserPromptSubmit prompts of the lengths people type:
// one word, a sentence, a paragraph, and a pasted stack trace (each made
// distinct by the request's number, so no cache answers).
var benchPrompts = []string{
	"continue %d",
	"add pagination to the invoices endpoint and a test for page %d",
	"the checkout page still shows the old total after I apply a coupon, can you look at cart.ts and the pricing hook? it happens on item %d only when the currency is EUR, and it started after yesterday's refactor of the discount service",
	"npm run build fails (run %d):\n" + strings.Repeat("    at Object.<anonymous> (/app/node_modules/vite/dist/node/chunks/dep-Bxmd1Xw3.js:66334:13)\n", 12) + "Error: Cannot find module '@rollup/rollup-linux-x64-gnu'",
}

// BenchmarkClaudeCodeHookRoute: the latency of POST /v1/hooks/claude-code
// as Claude Code's HTTP hooks see it (one client, loopback, the service
// already running), for SessionStart and for UserPromptSubmit with prompts
// of the lengths people type (benchPrompts, each distinct: gated,
// classified, nothing recorded), with the lexical embedder and with the real
// model. Run it with a bounded count:
//
//	go test ./server -run '^$' -bench ClaudeCodeHookRoute -benchtime 100x
func BenchmarkClaudeCodeHookRoute(b *testing.B) {
	cwd := b.TempDir()
	for _, backend := range []string{"lexical", "ort"} {
		for _, event := range []string{hooks.EventSessionStart, hooks.EventUserPromptSubmit} {
			b.Run("embedder="+backend+"/event="+event, func(b *testing.B) {
				ts := hookBenchServer(b, hookBenchEmbedder(b, backend))
				client := ts.Client()
				body := func(i int) string {
					extra := `"source":"startup"`
					if event == hooks.EventUserPromptSubmit {
						prompt, _ := json.Marshal(fmt.Sprintf(benchPrompts[(i+len(benchPrompts))%len(benchPrompts)], i))
						extra = `"prompt":` + string(prompt)
					}
					return fmt.Sprintf(`{"session_id":"bench","cwd":%q,"hook_event_name":%q,%s}`, cwd, event, extra)
				}
				post := func(i int) {
					resp, err := client.Post(ts.URL+hooks.HTTPRoute, "application/json", strings.NewReader(body(i)))
					if err != nil {
						b.Fatal(err)
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
						b.Fatalf("status %d", resp.StatusCode)
					}
				}
				post(-1) // warm up: connection, index
				lat := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := range b.N {
					start := time.Now()
					post(i)
					lat = append(lat, time.Since(start))
				}
				b.StopTimer()
				slices.Sort(lat)
				p50, p95, p99 := lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*95/100)], lat[min(len(lat)-1, len(lat)*99/100)]
				b.ReportMetric(float64(p50.Microseconds())/1000, "p50_ms")
				b.ReportMetric(float64(p95.Microseconds())/1000, "p95_ms")
				b.ReportMetric(float64(p99.Microseconds())/1000, "p99_ms")
				b.Logf("%s %s: %d requests, p50 %v, p95 %v, p99 %v", backend, event, len(lat), p50, p95, p99)
			})
		}
	}
}
