package ort

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modeltest"
)

// BenchmarkVersusTransformersJS compares the ort backend with the paper's own
// stack — Transformers.js' feature-extraction pipeline on onnxruntime-node,
// kept running in a Node.js process (scripts/jsref/duel.mjs) — pass by pass
// on the very same batches of the full-size model: each round times one pass
// over a text set on every contender (the fused graph, the graph as exported,
// Transformers.js), starting with a different one each round, and the
// reported ratios are medians of the per-round ratios. On a shared machine
// the speed available moves by tens of percent from one second to the next;
// within a round of a second or two it hardly does, so pairs taken this way
// measure the stacks, not the machine's weather. The int8 graph of the same
// folder (model_int8.onnx, `lexsona model import`) takes part too: on the ort
// backend, and in Transformers.js loading that very file as its quantized
// model (dtype 'q8', onnx/model_quantized.onnx in a folder of links). Run with
//
//	go test ./models/ -run '^$' -bench VersusTransformersJS -benchtime 15x
//
// (rounds per text set and batch size; LEXSONA_BENCH_THREADS=1 runs every
// stack on one intra-op thread). Metrics: x-vs-js (fused ort speed
// over Transformers.js', median over rounds; x-vs-js-p25 its lower
// quartile), unfused-x-vs-js (the graph as exported), fused-x (fused over
// exported), int8-x-vs-fp32 (int8 ort over fused fp32 ort; -p25 its lower
// quartile), int8-x-vs-js-q8 (int8 ort over Transformers.js on the same int8
// file; -p25), and the medians of each contender's texts/s. It needs
// Node.js (scripts/jsref.sh installs the npm packages on first use); without
// node on PATH it is skipped.
func BenchmarkVersusTransformersJS(b *testing.B) {
	dir := modeltest.MustFullModel(b)
	mustLib(b)
	threads, jsThreads := benchThreads(b)
	js := MustStartJSDuel(b, dir, jsThreads...)
	fused := mustOpen(b, models.Options{ModelDir: dir, CacheSize: -1, Threads: threads})
	if fused.fused == "" {
		b.Fatal("the full-size model was not fused")
	}
	exported := mustOpen(b, models.Options{ModelDir: dir, CacheSize: -1, NoFuse: true, Threads: threads})
	int8 := mustOpen(b, models.Options{ModelDir: MustInt8Model(b, dir), Variant: models.VariantInt8, CacheSize: -1, Threads: threads})
	jsQ8 := MustStartJSDuel(b, MustTJSQuantizedFolder(b, dir), append(jsThreads, "--dtype", "q8")...)
	goPass := func(e models.Embedder) func([][]string) (time.Duration, error) {
		return func(batches [][]string) (time.Duration, error) {
			t0 := time.Now()
			for _, batch := range batches {
				if _, err := e.Embed(context.Background(), batch); err != nil {
					return 0, err
				}
			}
			return time.Since(t0), nil
		}
	}
	contenders := []struct {
		name string
		pass func([][]string) (time.Duration, error)
	}{{"ort", goPass(fused)}, {"ort-unfused", goPass(exported)}, {"js", js.Pass}, {"ort-int8", goPass(int8)}, {"js-q8", jsQ8.Pass}}
	for _, set := range modeltest.BenchTextSets {
		texts := modeltest.BenchTexts(b, set.File)
		for _, size := range []int{1, 32} {
			batches := onePass(texts, size)
			b.Run(fmt.Sprintf("%s/batch%d", set.Name, size), func(b *testing.B) {
				for _, c := range contenders { // warm-up: weights, arenas, JIT
					if _, err := c.pass(batches); err != nil {
						b.Fatalf("%s: %v", c.name, err)
					}
				}
				took := make([][]time.Duration, len(contenders))
				for round := 0; b.Loop(); round++ {
					for k := range contenders {
						i := (round + k) % len(contenders)
						d, err := contenders[i].pass(batches)
						if err != nil {
							b.Fatalf("%s: %v", contenders[i].name, err)
						}
						took[i] = append(took[i], d)
					}
				}
				ort, unfused, tjs, q8, tjsQ8 := took[0], took[1], took[2], took[3], took[4]
				b.ReportMetric(quantileRatio(tjs, ort, 0.5), "x-vs-js")
				b.ReportMetric(quantileRatio(tjs, ort, 0.25), "x-vs-js-p25")
				b.ReportMetric(quantileRatio(tjs, unfused, 0.5), "unfused-x-vs-js")
				b.ReportMetric(quantileRatio(unfused, ort, 0.5), "fused-x")
				b.ReportMetric(quantileRatio(ort, q8, 0.5), "int8-x-vs-fp32")
				b.ReportMetric(quantileRatio(ort, q8, 0.25), "int8-x-vs-fp32-p25")
				b.ReportMetric(quantileRatio(tjsQ8, q8, 0.5), "int8-x-vs-js-q8")
				b.ReportMetric(quantileRatio(tjsQ8, q8, 0.25), "int8-x-vs-js-q8-p25")
				n := float64(passTexts(batches))
				for i, c := range contenders {
					b.ReportMetric(n/medianDuration(took[i]).Seconds(), c.name+"-sent/s")
				}
			})
		}
	}
}

// benchThreads is $LEXSONA_BENCH_THREADS, the intra-op threads every stack
// of BenchmarkVersusTransformersJS runs with (0, the default: ONNX
// Runtime's one per core), and the duel.mjs options that say the same. One
// thread each keeps the pairs fair on a machine other work keeps busy,
// where a pool of two threads waits for its descheduled half.
func benchThreads(tb testing.TB) (int, []string) {
	v := testenv.Knob(testenv.BenchThreadsEnv)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		tb.Fatalf("LEXSONA_BENCH_THREADS=%q: want a number of threads >= 1", v)
	}
	return n, []string{"--threads", v}
}

// onePass is the batches of one pass over texts: consecutive slices of size,
// the last one filled up from the start, so every text is embedded at least
// once and every call has size texts.
func onePass(texts []string, size int) [][]string {
	return modeltest.BenchBatches(texts, size)[:(len(texts)+size-1)/size]
}

func passTexts(batches [][]string) int {
	n := 0
	for _, b := range batches {
		n += len(b)
	}
	return n
}

// quantileRatio is the q-quantile over rounds of slow[i]/fast[i]: at q 0.5,
// how many times faster fast was in a typical round; at 0.25, the speed-up it
// had in at least three rounds out of four.
func quantileRatio(slow, fast []time.Duration, q float64) float64 {
	r := make([]float64, min(len(slow), len(fast)))
	for i := range r {
		r[i] = slow[i].Seconds() / fast[i].Seconds()
	}
	if len(r) == 0 {
		return 0
	}
	slices.Sort(r)
	return r[int(q*float64(len(r)-1)+0.5)]
}

func medianDuration(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// JSDuel is a running scripts/jsref/duel.mjs: Transformers.js loaded once,
// embedding passes on request.
type JSDuel struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Scanner
	stderr testenv.SyncBuffer
}

// MustStartJSDuel starts duel.mjs on the model folder (with duel.mjs'
// options, e.g. "--dtype", "q8") and waits until the pipeline is loaded; it
// skips the benchmark when node is not on PATH and fails it when the script
// does not come up (its stderr is in the message).
func MustStartJSDuel(tb testing.TB, modelDir string, options ...string) *JSDuel {
	tb.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		tb.Skip("node not found on PATH: the Transformers.js side needs Node.js >= 20.9 (Debian: apt-get install nodejs npm)")
	}
	script := filepath.Join(testenv.RepoRoot(tb), "scripts", "jsref.sh")
	d := &JSDuel{cmd: exec.Command("bash", append(append([]string{script, "duel"}, options...), modelDir)...)}
	d.cmd.Stderr = &d.stderr
	var err error
	if d.in, err = d.cmd.StdinPipe(); err != nil {
		tb.Fatal(err)
	}
	out, err := d.cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	d.out = bufio.NewScanner(out)
	d.out.Buffer(make([]byte, 64<<10), 1<<20)
	if err := d.cmd.Start(); err != nil {
		tb.Fatalf("starting %s duel: %v", script, err)
	}
	tb.Cleanup(func() {
		d.in.Close()
		d.cmd.Wait()
	})
	var ready struct {
		Ready          bool   `json:"ready"`
		TransformersJS string `json:"transformers_js"`
		ORTNode        string `json:"onnxruntime_node"`
	}
	if err := d.read(&ready); err != nil || !ready.Ready {
		tb.Fatalf("%s duel %s did not start (%v); its stderr:\n%s", script, modelDir, err, d.stderr.String())
	}
	tb.Logf("Transformers.js %s on onnxruntime-node %s", ready.TransformersJS, ready.ORTNode)
	return d
}

// Pass embeds the batches in Transformers.js, one call per batch, and returns
// the time the calls took there (JSON transport not included).
func (d *JSDuel) Pass(batches [][]string) (time.Duration, error) {
	req, err := json.Marshal(map[string]any{"batches": batches})
	if err != nil {
		return 0, err
	}
	if _, err := d.in.Write(append(req, '\n')); err != nil {
		return 0, fmt.Errorf("writing to duel.mjs: %w (stderr: %s)", err, d.stderr.String())
	}
	var res struct {
		Vectors int     `json:"vectors"`
		MS      float64 `json:"ms"`
		Error   string  `json:"error"`
	}
	if err := d.read(&res); err != nil {
		return 0, err
	}
	if res.Error != "" {
		return 0, fmt.Errorf("duel.mjs: %s", res.Error)
	}
	if want := passTexts(batches); res.Vectors != want {
		return 0, fmt.Errorf("duel.mjs returned %d vectors for %d texts", res.Vectors, want)
	}
	return time.Duration(res.MS * float64(time.Millisecond)), nil
}

func (d *JSDuel) read(v any) error {
	if !d.out.Scan() {
		if err := d.out.Err(); err != nil {
			return err
		}
		return fmt.Errorf("duel.mjs closed its output (stderr: %s)", d.stderr.String())
	}
	return json.Unmarshal(d.out.Bytes(), v)
}
