package ort

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modeltest"
)

// ortBareCalls tokenizes the benchmark batches beforehand into the padded
// sub-batches the ort pipeline would run.
func ortBareCalls(b *testing.B, e *Embedder, batches [][]string) [][]models.Batch {
	var calls [][]models.Batch
	for _, batch := range batches {
		encs, err := e.p.Tokenizer().EncodeBatch(batch)
		if err != nil {
			b.Fatal(err)
		}
		var subs []models.Batch
		if _, err := models.RunSorted(context.Background(), encs, e.p.CallSize(), func(_ context.Context, idx []int, pb models.Batch) ([][]float32, error) {
			subs = append(subs, pb)
			return make([][]float32, len(idx)), nil
		}); err != nil {
			b.Fatal(err)
		}
		calls = append(calls, subs)
	}
	return calls
}

func runBare(e *Embedder, subs []models.Batch) error {
	for _, pb := range subs {
		if _, _, err := e.g.Forward(context.Background(), pb); err != nil {
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
	dir := modeltest.MustFullModel(b)
	mustLib(b)
	texts := modeltest.ReferenceTexts(b)
	e := mustOpen(b, models.Options{ModelDir: dir, CacheSize: -1})
	for _, size := range []int{1, 32} {
		batches := modeltest.BenchBatches(texts, size)
		calls := ortBareCalls(b, e, batches)
		b.Run(fmt.Sprintf("batch%d", size), func(b *testing.B) {
			i := 0
			modeltest.RunBench(b, batches, func([]string) error {
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
	dir := modeltest.MustFullModel(b)
	mustLib(b)
	texts := modeltest.ReferenceTexts(b)
	for _, variant := range []string{"", models.VariantInt8} {
		prefix := ""
		if variant != "" {
			prefix = variant + "/"
			MustInt8Model(b, dir)
		}
		e := mustOpen(b, models.Options{ModelDir: dir, Variant: variant, CacheSize: -1})
		benchOverhead(b, e, texts, prefix)
	}
}

// benchOverhead is BenchmarkORTOverhead on one embedder, its sub-benchmarks
// named prefix+"batch<N>".
func benchOverhead(b *testing.B, e *Embedder, texts []string, prefix string) {
	for _, size := range []int{1, 32} {
		batches := modeltest.BenchBatches(texts, size)
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
