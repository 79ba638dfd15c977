package ort

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modeltest"
)

// BenchmarkORTWeightStreaming measures why a single short text costs what it
// costs on ONNX Runtime, whichever program drives it. It times the same
// MiniLM-width encoder with 1 layer (7 MB of encoder weights, generated into
// a temp dir with scripts/gen_bert_onnx.py) and with 6 (the real model's
// 42 MB, which do not fit a 32 MB last-level cache) on one text, alternating
// the two in each round, and reports medians over rounds of
//
//	one-layer-us       a whole call on the 1-layer model: an upper bound on a
//	                   layer whose weights stay cached between calls
//	six-layers-us/6    a call on the 6-layer model, per layer
//	per-layer-x        the second over the first
//
// On this project's 2-core EPYC (32 MB L3, ~32 GB/s from DRAM with two
// threads) a 3-token text gives ~0.13 ms for one layer and ~0.33 ms per layer
// of six (2.6×: five layers' 35 MB in t(6) − t(1), ~19 GB/s), while at 32
// tokens both cost ~0.95 ms per layer (the arithmetic hides the traffic). A
// short text at batch 1 waits on memory, the same for ort and for
// Transformers.js, which run the same ONNX Runtime kernels.
func BenchmarkORTWeightStreaming(b *testing.B) {
	mustLib(b)
	one := mustOpen(b, models.Options{ModelDir: MustGeneratedModel(b, 1), CacheSize: -1})
	six := mustOpen(b, models.Options{ModelDir: modeltest.MustFullModel(b), CacheSize: -1})
	for _, words := range []int{1, 30} {
		text := strings.TrimSpace(strings.Repeat("fix ", words))
		tokens := words + 2 // [CLS] … [SEP]; "fix" is one WordPiece token
		b.Run(fmt.Sprintf("tokens%d", tokens), func(b *testing.B) {
			const calls = 15
			var t1s, t6s, xs []float64
			for round := 0; b.Loop(); round++ {
				var t1, t6 float64
				if round%2 == 0 {
					t1, t6 = medianCallMicros(b, one, text, calls), medianCallMicros(b, six, text, calls)
				} else {
					t6, t1 = medianCallMicros(b, six, text, calls), medianCallMicros(b, one, text, calls)
				}
				t1s, t6s = append(t1s, t1), append(t6s, t6/6)
				xs = append(xs, t6/6/t1)
			}
			b.ReportMetric(median(t1s), "one-layer-us")
			b.ReportMetric(median(t6s), "six-layers-us/6")
			b.ReportMetric(median(xs), "per-layer-x")
		})
	}
}

// median sorts v and returns its middle element.
func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}

// medianCallMicros embeds text n times (after one warm-up call) and returns
// the median call in microseconds.
func medianCallMicros(b *testing.B, e models.Embedder, text string, n int) float64 {
	b.Helper()
	lat := make([]float64, 0, n)
	for i := range n + 1 {
		t0 := time.Now()
		if _, err := e.Embed(context.Background(), []string{text}); err != nil {
			b.Fatal(err)
		}
		if i > 0 {
			lat = append(lat, float64(time.Since(t0).Nanoseconds())/1e3)
		}
	}
	return median(lat)
}

// MustGeneratedModel writes a MiniLM-width model with the given number of
// encoder layers (seed 42, the real tokenizer from ../shared) into a temp dir
// with scripts/gen_bert_onnx.py, or skips when /usr/bin/python3 with onnx is
// not there (`make deps` installs it).
func MustGeneratedModel(tb testing.TB, layers int) string {
	tb.Helper()
	tokDir := modeltest.MustSharedTokenizerDir(tb)
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import onnx, numpy").Run(); err != nil {
		tb.Skipf("%s with onnx and numpy is needed to generate a %d-layer model (`make deps`): %v", py, layers, err)
	}
	out := filepath.Join(tb.TempDir(), "layers"+strconv.Itoa(layers))
	cmd := exec.Command(py, filepath.Join(testenv.RepoRoot(tb), "scripts", "gen_bert_onnx.py"),
		"--layers", strconv.Itoa(layers), "--out", out, "--tokenizer-dir", tokDir)
	cmd.Stderr = os.Stderr
	if msg, err := cmd.Output(); err != nil {
		tb.Fatalf("gen_bert_onnx.py --layers %d: %v\n%s", layers, err, msg)
	}
	return out
}
