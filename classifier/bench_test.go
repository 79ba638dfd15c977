package classifier

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/viterin/vek/vek32"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
)

// randomRows returns n seeded random normalised dims-dimensional vectors, one
// rule each.
func randomRows(n, dims int, seed uint64) []Row {
	rng := rand.New(rand.NewPCG(seed, 1))
	rows := make([]Row, n)
	for i := range rows {
		v := make([]float32, dims)
		var s float64
		for j := range v {
			v[j] = float32(rng.NormFloat64())
			s += float64(v[j]) * float64(v[j])
		}
		vek32.DivNumber_Inplace(v, float32(math.Sqrt(s)))
		rows[i] = Row{RuleID: fmt.Sprintf("bench.r%06d", i), Vector: v}
	}
	return rows
}

var sink float32

// BenchmarkTopK measures Index.Search (dot products, best per rule, top-5
// above 0.5) over n random 384-d rule vectors against a plain sequential read
// of the same matrix (vek32.Sum over every float). Target at 100,000: within
// 1.3× of the read.
//
//	go test -run '^$' -bench 'TopK' -count 6 ./classifier/
func BenchmarkTopK(b *testing.B) {
	for _, n := range []int{30, 1000, 100000} {
		ix := NewIndex(384, nil, randomRows(n, 384, 42), nil)
		q := randomRows(1, 384, 7)[0].Vector
		b.Run(fmt.Sprintf("n=%d/topk", n), func(b *testing.B) {
			b.SetBytes(int64(len(ix.mat) * 4))
			for b.Loop() {
				_ = ix.Search(q, 5, 0.5, engine.Scope{})
			}
		})
		b.Run(fmt.Sprintf("n=%d/sequential-read", n), func(b *testing.B) {
			b.SetBytes(int64(len(ix.mat) * 4))
			for b.Loop() {
				sink = vek32.Sum(ix.mat)
			}
		})
	}
}

// benchTexts are corrections of typical length, rotated so no cache helps.
var benchTexts = []string{
	"stop using sed to edit files, use the replace tool",
	"please write shorter answers, no essays",
	"we use pnpm in this repo, not npm",
	"don't commit anything without asking me first",
	"no emojis in commit messages please",
	"wrap errors with context instead of returning them bare",
	"never pipe curl into sh",
	"run the tests before you say it works",
}

// benchClassify compares Classify with the embedder's own single-text
// latency (Embed of one text, as Classify sees the embedder: no cache in
// either) on a store synced with the default pack, each cycling through the
// same texts. Target: classify ≤ 1.1× embed.
//
// "embed" and "classify" time each alone. "alternated" switches between them
// every altBlock of run time, so that a machine whose load changes slows both
// alike, and reports x-embed, classify time over embed time. (Blocks rather
// than single calls: one Embed call's garbage — a fresh dense vector — evicts
// the next call's working set from the caches, which would be charged to
// whichever call comes next.) For a models.SparseEmbedder (lexical) it also
// times EmbedSparse, the embedding Classify itself runs, and reports
// x-embed-sparse: Classify's cost over its own embedding, the rest being
// scoring, bands and guard.
func benchClassify(b *testing.B, emb models.Embedder) {
	c := New(newMemCorpus(b, nil, emb), emb, Options{})
	ctx := context.Background()
	if _, err := c.Classify(ctx, benchTexts[0], engine.Scope{}); err != nil { // build the index
		b.Fatal(err)
	}
	ops := []func(text string) error{
		func(text string) error { _, err := emb.Embed(ctx, []string{text}); return err },
		func(text string) error { _, err := c.Classify(ctx, text, engine.Scope{}); return err },
	}
	if se, ok := emb.(models.SparseEmbedder); ok {
		ops = append(ops, func(text string) error { _, err := se.EmbedSparse(ctx, []string{text}); return err })
	}
	for _, alone := range []struct {
		name string
		op   func(string) error
	}{{"embed", ops[0]}, {"classify", ops[1]}} {
		b.Run(alone.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if err := alone.op(benchTexts[i%len(benchTexts)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("alternated", func(b *testing.B) {
		took := make([]time.Duration, len(ops))
		calls := make([]int, len(ops))
		j, block := 0, time.Duration(0)
		for b.Loop() {
			t0 := time.Now()
			if err := ops[j](benchTexts[calls[j]%len(benchTexts)]); err != nil {
				b.Fatal(err)
			}
			d := time.Since(t0)
			took[j], calls[j], block = took[j]+d, calls[j]+1, block+d
			if block >= altBlock {
				j, block = (j+1)%len(ops), 0
			}
		}
		if slices.Contains(calls, 0) {
			return // too short a run to compare
		}
		mean := func(k int) float64 { return took[k].Seconds() / float64(calls[k]) }
		b.ReportMetric(mean(1)/mean(0), "x-embed")
		if len(ops) > 2 {
			b.ReportMetric(mean(1)/mean(2), "x-embed-sparse")
		}
	})
}

// altBlock is how long benchClassify's alternated run keeps to one operation.
const altBlock = 5 * time.Millisecond

// go test -run '^$' -bench 'Classify' -count 6 ./classifier/
func BenchmarkClassifyLexical(b *testing.B) {
	benchClassify(b, MustLexical(b, nil))
}

// BenchmarkClassifyORT classifies with the real all-MiniLM-L6-v2
// (testenv.RealModelDir: `make real-model`) on the ort backend.
func BenchmarkClassifyORT(b *testing.B) {
	dir := testenv.RealModelDir(b)
	emb, err := auto.Open(context.Background(), models.Options{Backend: "ort", ModelDir: dir, OrtLibEnv: testenv.ORTLib(), Variant: testenv.ModelVariant(), CacheSize: -1})
	if err != nil {
		b.Skipf("ort backend unavailable (%v): run `make ort`", err)
	}
	defer emb.Close()
	benchClassify(b, emb)
}

// sparseRows returns n seeded random normalised dims-dimensional vectors with
// nnz non-zero values each, like the lexical embedder's.
func sparseRows(n, dims, nnz int, seed uint64) []Row {
	rng := rand.New(rand.NewPCG(seed, 3))
	rows := make([]Row, n)
	for i := range rows {
		v := make([]float32, dims)
		for range nnz {
			v[rng.IntN(dims)] = float32(rng.NormFloat64())
		}
		if n := vek32.Norm(v); n > 0 {
			vek32.DivNumber_Inplace(v, n)
		}
		rows[i] = Row{RuleID: fmt.Sprintf("bench.s%06d", i), Vector: v}
	}
	return rows
}

// BenchmarkIndexKernels compares the ways of scoring every row: vek32.Dot
// per row against vek32.MatMul_Into for dense 384-d rows, and the dense
// matrix against sparse columns for lexical-like 4096-d rows with 170
// non-zero values (the default pack has about 170 texts), the sparse columns
// scoring the query in its dense form or as its non-zero components (what
// the lexical embedder's EmbedSparse gives Classify).
//
//	go test -run '^$' -bench 'IndexKernels' -count 6 ./classifier/
func BenchmarkIndexKernels(b *testing.B) {
	defer func(k int) { denseKernel = k }(denseKernel)
	for _, n := range []int{30, 1000, 100000} {
		ix := NewIndex(384, nil, randomRows(n, 384, 42), nil)
		q := randomRows(1, 384, 7)[0].Vector
		for _, k := range []struct {
			name string
			k    int
		}{{"dot", kernelDot}, {"matmul", kernelMatMul}} {
			b.Run(fmt.Sprintf("dense384/n=%d/%s", n, k.name), func(b *testing.B) {
				denseKernel = k.k
				for b.Loop() {
					ix.pool.Put(ix.rowScores(q))
				}
			})
		}
	}
	for _, n := range []int{170, 10000} {
		rows := sparseRows(n, 4096, 170, 5)
		sp := NewIndex(4096, nil, rows, nil)
		dense := NewIndex(4096, nil, rows, nil)
		dense.mat, dense.sp = denseMatrix(rows), nil
		q := sparseRows(1, 4096, 170, 9)[0].Vector
		b.Run(fmt.Sprintf("lexical4096/n=%d/sparse", n), func(b *testing.B) {
			for b.Loop() {
				sp.pool.Put(sp.rowScores(q))
			}
		})
		sq := sparseQuery(q)
		b.Run(fmt.Sprintf("lexical4096/n=%d/sparse-query", n), func(b *testing.B) {
			for b.Loop() {
				sp.pool.Put(sp.rowScoresQuery(sq))
			}
		})
		b.Run(fmt.Sprintf("lexical4096/n=%d/dense-matmul", n), func(b *testing.B) {
			denseKernel = kernelMatMul
			for b.Loop() {
				dense.pool.Put(dense.rowScores(q))
			}
		})
	}
}

func denseMatrix(rows []Row) []float32 {
	var m []float32
	for _, r := range rows {
		m = append(m, r.Vector...)
	}
	return m
}
