package ort

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modeltest"
)

// BenchmarkInt8VersusFP32 times the int8 graph against the float32 (fused)
// graph of the same model folder on the ort backend, through the whole
// pipeline (Embed), pass by pass alternated: each round embeds one pass over
// a text set with every contender, starting with a different one each
// round, so both see the same machine load; the ratios are taken round by
// round. With LEXSONA_BENCH_INT8_BEFORE naming another model folder, its
// int8 graph takes part too, as "before" (to compare two int8 rewrites).
// Run with
//
//	go test ./models/ort -run '^$' -bench Int8VersusFP32 -benchtime 15x
//
// (rounds per text set and batch size; LEXSONA_BENCH_THREADS sets the
// intra-op threads). Metrics: int8-x-vs-fp32 (float32 time over int8 time,
// median over rounds) with its quartiles -p25 and -p75, before-x-vs-fp32
// and int8-x-vs-before likewise, and each contender's median texts/s.
func BenchmarkInt8VersusFP32(b *testing.B) {
	dir := MustInt8Model(b, modeltest.MustFullModel(b))
	mustLib(b)
	threads, _ := benchThreads(b)
	type contender struct {
		name string
		e    *Embedder
	}
	contenders := []contender{
		{"fp32", mustOpen(b, models.Options{ModelDir: dir, CacheSize: -1, Threads: threads})},
		{"int8", mustOpen(b, models.Options{ModelDir: dir, Variant: models.VariantInt8, CacheSize: -1, Threads: threads})},
	}
	if before := testenv.Knob(testenv.BenchInt8BeforeEnv); before != "" {
		contenders = append(contenders, contender{"before", mustOpen(b, models.Options{ModelDir: MustInt8Model(b, before), Variant: models.VariantInt8, CacheSize: -1, Threads: threads})})
	}
	pass := func(e *Embedder, batches [][]string) (time.Duration, error) {
		t0 := time.Now()
		for _, batch := range batches {
			if _, err := e.Embed(context.Background(), batch); err != nil {
				return 0, err
			}
		}
		return time.Since(t0), nil
	}
	for _, set := range modeltest.BenchTextSets {
		texts := modeltest.BenchTexts(b, set.File)
		for _, size := range []int{1, 32} {
			batches := onePass(texts, size)
			b.Run(fmt.Sprintf("%s/batch%d", set.Name, size), func(b *testing.B) {
				for _, c := range contenders { // warm-up
					if _, err := pass(c.e, batches); err != nil {
						b.Fatalf("%s: %v", c.name, err)
					}
				}
				took := make([][]time.Duration, len(contenders))
				for round := 0; b.Loop(); round++ {
					for k := range contenders {
						i := (round + k) % len(contenders)
						d, err := pass(contenders[i].e, batches)
						if err != nil {
							b.Fatalf("%s: %v", contenders[i].name, err)
						}
						took[i] = append(took[i], d)
					}
				}
				report := func(slow, fast []time.Duration, unit string) {
					b.ReportMetric(quantileRatio(slow, fast, 0.5), unit)
					b.ReportMetric(quantileRatio(slow, fast, 0.25), unit+"-p25")
					b.ReportMetric(quantileRatio(slow, fast, 0.75), unit+"-p75")
				}
				report(took[0], took[1], "int8-x-vs-fp32")
				if len(took) > 2 {
					report(took[0], took[2], "before-x-vs-fp32")
					report(took[2], took[1], "int8-x-vs-before")
				}
				n := float64(passTexts(batches))
				for i, c := range contenders {
					b.ReportMetric(n/medianDuration(took[i]).Seconds(), c.name+"-sent/s")
				}
			})
		}
	}
}
