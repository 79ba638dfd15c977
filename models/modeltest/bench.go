package modeltest

import (
	"slices"
	"testing"
	"time"
)

// The benchmarks cycle through testdata/reference/texts.json exactly as
// scripts/jsref/bench.mjs does for Transformers.js: batch 1 takes one text per
// call, batch 32 the next 32 (wrapping around). Run with
//
//	go test ./models/auto/ -run '^$' -bench . -benchtime 10s
//
// on the full-size model (`make bench-model`). Metrics: sent/s, and p50-ms,
// the median single-text latency, at batch 1.

// BenchBatches returns the calls a benchmark makes: texts cycled in slices of size.
func BenchBatches(texts []string, size int) [][]string {
	var out [][]string
	next := 0
	for range len(texts) { // texts.json has a prime count: every offset once
		b := make([]string, size)
		for i := range b {
			b[i] = texts[(next+i)%len(texts)]
		}
		next = (next + size) % len(texts)
		out = append(out, b)
	}
	return out
}

// RunBench calls embed on the batches in turn and reports sent/s and, for
// single texts, the median latency.
func RunBench(b *testing.B, batches [][]string, embed func([]string) error) {
	for _, batch := range batches[:min(3, len(batches))] { // warm-up
		if err := embed(batch); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	sent := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		batch := batches[i%len(batches)]
		start := time.Now()
		if err := embed(batch); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		sent += len(batch)
	}
	b.ReportMetric(float64(sent)/b.Elapsed().Seconds(), "sent/s")
	if len(batches[0]) == 1 && len(lat) > 0 {
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	}
}

// BenchTexts reads a text set of models/testdata/reference.
func BenchTexts(b *testing.B, file string) []string {
	var texts []string
	MustReadJSON(b, Testdata(b, "reference", file), &texts)
	return texts
}

// BenchTextSets are the texts the embedding benchmarks cycle through: typical
// corrections (testdata/reference/bench-texts.json, 100 of them, a dozen
// tokens each) and the edge cases of texts.json (83 texts: accents, CJK,
// emoji, code, and the long texts over 256 tokens that take most of its time).
var BenchTextSets = []struct{ Name, File string }{
	{"corrections", "bench-texts.json"},
	{"edge-cases", "texts.json"},
}
