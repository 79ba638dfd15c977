package models

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The benchmarks cycle through testdata/reference/texts.json exactly as
// scripts/jsref/bench.mjs does for Transformers.js: batch 1 takes one text per
// call, batch 32 the next 32 (wrapping around). Run with
//
//	go test ./models/ -run '^$' -bench . -benchtime 10s
//
// on the full-size model (`make bench-model`). Metrics: sent/s, and p50-ms,
// the median single-text latency, at batch 1.

// benchBatches returns the calls a benchmark makes: texts cycled in slices of size.
func benchBatches(texts []string, size int) [][]string {
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

// runBench calls embed on the batches in turn and reports sent/s and, for
// single texts, the median latency.
func runBench(b *testing.B, batches [][]string, embed func([]string) error) {
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

// benchTextSets are the texts BenchmarkEmbed cycles through: typical
// corrections (testdata/reference/bench-texts.json, 100 of them, a dozen
// tokens each) and the edge cases of texts.json (83 texts: accents, CJK,
// emoji, code, and the long texts over 256 tokens that take most of its time).
var benchTextSets = []struct{ name, file string }{
	{"corrections", "bench-texts.json"},
	{"edge-cases", "texts.json"},
}

func benchTexts(b *testing.B, file string) []string {
	var texts []string
	MustReadJSON(b, filepath.Join("testdata", "reference", file), &texts)
	return texts
}

// BenchmarkEmbed: BenchmarkEmbed/<text set>/<backend>/batch<N>. ort runs the
// fused graph (see ortfuse.go); ort-unfused the graph as exported, which is
// what Transformers.js runs.
func BenchmarkEmbed(b *testing.B) {
	dir := MustFullModel(b)
	type backend struct {
		name string
		o    Options
	}
	var backends []backend
	if _, why := ortLibForTests(b); why != "" {
		b.Logf("no ort benchmarks: %s", why)
	} else {
		backends = append(backends, backend{"ort", Options{Backend: "ort"}}, backend{"ort-unfused", Options{Backend: "ort", NoFuse: true}})
	}
	backends = append(backends, backend{"go", Options{Backend: "go"}}, backend{"lexical", Options{Backend: "lexical"}})
	for _, set := range benchTextSets {
		b.Run(set.name, func(b *testing.B) {
			for _, be := range backends {
				b.Run(be.name, func(b *testing.B) {
					o := be.o
					o.ModelDir, o.CacheSize = dir, -1
					e := MustOpen(b, o)
					texts := benchTexts(b, set.file)
					if l, ok := e.(*Lexical); ok {
						texts = slices.DeleteFunc(slices.Clone(texts), func(s string) bool { return len(lexWords(s)) == 0 }) // blank texts are errors
						l.Fit(texts)
					}
					for _, size := range []int{1, 32} {
						b.Run(fmt.Sprintf("batch%d", size), func(b *testing.B) {
							runBench(b, benchBatches(texts, size), func(batch []string) error {
								_, err := e.Embed(context.Background(), batch)
								return err
							})
						})
					}
				})
			}
		})
	}
}

// ortBareCalls tokenizes the benchmark batches beforehand into the padded
// sub-batches the ort pipeline would run.
func ortBareCalls(b *testing.B, e *ortEmbedder, batches [][]string) [][]Batch {
	var calls [][]Batch
	for _, batch := range batches {
		encs, err := e.tok.EncodeBatch(batch)
		if err != nil {
			b.Fatal(err)
		}
		var subs []Batch
		if _, err := runSorted(context.Background(), encs, e.callSize(), func(_ context.Context, idx []int, pb Batch) ([][]float32, error) {
			subs = append(subs, pb)
			return make([][]float32, len(idx)), nil
		}); err != nil {
			b.Fatal(err)
		}
		calls = append(calls, subs)
	}
	return calls
}

func runBare(e *ortEmbedder, subs []Batch) error {
	for _, pb := range subs {
		if _, _, err := e.run(context.Background(), pb); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkORTBare runs only the ONNX Runtime session, on the very padded
// sub-batches the ort pipeline would build, tokenized beforehand: the
// difference to BenchmarkEmbed/ort is the pipeline's own cost (tokenizing,
// sorting, padding, tensors, pooling).
func BenchmarkORTBare(b *testing.B) {
	dir := MustFullModel(b)
	MustORTLib(b)
	texts := referenceTexts(b)
	e := MustOpen(b, Options{Backend: "ort", ModelDir: dir, CacheSize: -1}).(*ortEmbedder)
	for _, size := range []int{1, 32} {
		batches := benchBatches(texts, size)
		calls := ortBareCalls(b, e, batches)
		b.Run(fmt.Sprintf("batch%d", size), func(b *testing.B) {
			i := 0
			runBench(b, batches, func([]string) error {
				err := runBare(e, calls[i%len(calls)])
				i++
				return err
			})
		})
	}
}

// BenchmarkORTOverhead alternates the whole ort pipeline and the bare session
// on the same batches, so that both see the same machine load, and reports
// the pipeline's extra time in percent of the bare run (target: < 5):
// batch1 and batch32 on the float32 graph, int8/batch1 and int8/batch32 on
// the int8 one (whose shorter calls make the same pipeline a larger share).
func BenchmarkORTOverhead(b *testing.B) {
	dir := MustFullModel(b)
	MustORTLib(b)
	texts := referenceTexts(b)
	for _, variant := range []string{"", VariantInt8} {
		prefix := ""
		if variant != "" {
			prefix = variant + "/"
			MustInt8Model(b, dir)
		}
		e := MustOpen(b, Options{Backend: "ort", ModelDir: dir, Variant: variant, CacheSize: -1}).(*ortEmbedder)
		benchOverhead(b, e, texts, prefix)
	}
}

// benchOverhead is BenchmarkORTOverhead on one embedder, its sub-benchmarks
// named prefix+"batch<N>".
func benchOverhead(b *testing.B, e *ortEmbedder, texts []string, prefix string) {
	for _, size := range []int{1, 32} {
		batches := benchBatches(texts, size)
		calls := ortBareCalls(b, e, batches)
		b.Run(fmt.Sprintf("%sbatch%d", prefix, size), func(b *testing.B) {
			var pipe, bare time.Duration
			for i := 0; b.Loop(); i++ {
				k := i % len(batches)
				t0 := time.Now()
				if _, err := e.Embed(context.Background(), batches[k]); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if err := runBare(e, calls[k]); err != nil {
					b.Fatal(err)
				}
				pipe, bare = pipe+t1.Sub(t0), bare+time.Since(t1)
			}
			b.ReportMetric(100*(pipe.Seconds()-bare.Seconds())/bare.Seconds(), "overhead-%")
		})
	}
}

// BenchmarkTokenize is the tokenizer's share of the pipeline, per text.
func BenchmarkTokenize(b *testing.B) {
	tok := MustTokenizer(b)
	texts := referenceTexts(b)
	for i := 0; b.Loop(); i++ {
		if _, err := tok.Encode(texts[i%len(texts)]); err != nil {
			b.Fatal(err)
		}
	}
}
