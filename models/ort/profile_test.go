package ort

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modeltest"
	onnxrt "github.com/yalue/onnxruntime_go"
)

// BenchmarkORTProfile says where the time of embedding a text goes, operator
// by operator, for the float32 graph the ort backend runs (the fused one)
// and for the int8 graph, from ONNX Runtime's own profiler: both graphs run
// in bare sessions with profiling on, pass for pass alternated, on the
// padded sub-batches the pipeline would build for each from the corrections
// text set (the int8 graph runs one text per call), at batch 1 and 32.
// Metrics, in µs per text: <graph>-run-us/text (the session runs as the
// profiler saw them: operators plus the session's own work),
// <graph>-ops-us/text (operators only), and <graph>-<operator>-us/text for
// every operator type taking at least 2% of a graph's time; the log has the
// full table. The profiler's own bookkeeping makes every number larger than
// an unprofiled call; the shares are what it is for. Run with
//
//	go test ./models/ -run '^$' -bench ORTProfile -benchtime 20x
//
// (passes over the text set per batch size; LEXSONA_BENCH_THREADS sets the
// intra-op threads, default one per core).
func BenchmarkORTProfile(b *testing.B) {
	dir := modeltest.MustFullModel(b)
	mustLib(b)
	fp32 := mustOpen(b, models.Options{ModelDir: dir, CacheSize: -1})
	if fp32.fused == "" {
		b.Fatal("the full-size model was not fused")
	}
	q8 := mustOpen(b, models.Options{ModelDir: MustInt8Model(b, dir), Variant: models.VariantInt8, CacheSize: -1})
	texts := modeltest.BenchTexts(b, "bench-texts.json")
	threads, _ := benchThreads(b)
	if threads == 0 {
		threads = runtime.NumCPU()
	}
	for _, size := range []int{1, 32} {
		batches := onePass(texts, size)
		b.Run(fmt.Sprintf("batch%d", size), func(b *testing.B) {
			graphs := []struct {
				name  string
				e     *Embedder
				model string
				calls [][]models.Batch
			}{
				{"fp32", fp32, fp32.fused, ortBareCalls(b, fp32, batches)},
				{"int8", q8, filepath.Join(dir, "onnx", "model_int8.onnx"), ortBareCalls(b, q8, batches)},
			}
			profiles := make([]string, len(graphs))
			sessions := make([]*onnxrt.DynamicAdvancedSession, len(graphs))
			for i, g := range graphs {
				prefix := filepath.Join(b.TempDir(), g.name)
				sessions[i] = mustProfiledSession(b, g.model, g.e.g.inputs, prefix, threads)
				profiles[i] = filepath.Dir(prefix)
			}
			passes := 0
			for i := 0; b.Loop(); i++ {
				passes++
				for k := range graphs {
					g := graphs[(i+k)%len(graphs)]
					s := sessions[(i+k)%len(graphs)]
					for _, subs := range g.calls {
						for _, pb := range subs {
							if _, _, err := (&graph{sess: s, inputs: g.e.g.inputs, dims: g.e.g.dims}).Forward(context.Background(), pb); err != nil {
								b.Fatalf("%s: %v", g.name, err)
							}
						}
					}
				}
			}
			for i, g := range graphs {
				sessions[i].Destroy() // writes the profile
				ops, runs, runUS := mustReadProfile(b, profiles[i])
				texts := float64(passes * passTexts(batches))
				total := 0.0
				for _, op := range ops {
					total += op.us
				}
				b.ReportMetric(total/texts, g.name+"-ops-us/text")
				b.ReportMetric(runUS*float64(runs)/texts, g.name+"-run-us/text")
				var lines []string
				for _, op := range ops {
					if op.us >= 0.02*total {
						b.ReportMetric(op.us/texts, g.name+"-"+op.name+"-us/text")
					}
					lines = append(lines, fmt.Sprintf("  %-24s %3d nodes %8.1f µs/text %5.1f%%", op.name, op.nodes, op.us/texts, 100*op.us/total))
				}
				b.Logf("%s graph, batch %d: %d session runs for %.0f texts, %.1f µs per text in runs, %.1f in operators\n%s",
					g.name, size, runs, texts, runUS*float64(runs)/texts, total/texts, strings.Join(lines, "\n"))
			}
		})
	}
}

// mustProfiledSession opens model in a session with ONNX Runtime's profiler
// on (the file goes to prefix_<date>.json when the session is destroyed),
// with threads intra-op threads.
func mustProfiledSession(b *testing.B, model string, inputs []string, prefix string, threads int) *onnxrt.DynamicAdvancedSession {
	b.Helper()
	opts, err := onnxrt.NewSessionOptions()
	if err != nil {
		b.Fatal(err)
	}
	defer opts.Destroy()
	for _, err := range []error{opts.SetIntraOpNumThreads(threads), opts.SetInterOpNumThreads(1), opts.EnableProfiling(prefix)} {
		if err != nil {
			b.Fatal(err)
		}
	}
	s, err := onnxrt.NewDynamicAdvancedSession(model, inputs, []string{"last_hidden_state"}, opts)
	if err != nil {
		b.Fatalf("%s: %v", model, err)
	}
	return s
}

// opTime is the kernel time of one operator type over a profile.
type opTime struct {
	name  string
	nodes int
	us    float64
}

// mustReadProfile sums the kernel times of the one profile in dir by
// operator type, most expensive first, and counts the model runs in it,
// returning their mean duration in µs too.
func mustReadProfile(b *testing.B, dir string) ([]opTime, int, float64) {
	b.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		b.Fatalf("want one profile in %s, found %v", dir, files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		b.Fatal(err)
	}
	var events []struct {
		Cat  string  `json:"cat"`
		Name string  `json:"name"`
		Dur  float64 `json:"dur"`
		Args struct {
			OpName string `json:"op_name"`
		} `json:"args"`
	}
	if err := json.Unmarshal(raw, &events); err != nil {
		b.Fatalf("%s: %v", files[0], err)
	}
	byOp := map[string]*opTime{}
	nodes := map[string]map[string]bool{}
	runs, runUS := 0, 0.0
	for _, e := range events {
		switch {
		case e.Cat == "Session" && e.Name == "model_run":
			runs++
			runUS += e.Dur
		case e.Cat == "Node" && strings.HasSuffix(e.Name, "_kernel_time") && e.Args.OpName != "":
			o := byOp[e.Args.OpName]
			if o == nil {
				o = &opTime{name: e.Args.OpName}
				byOp[e.Args.OpName], nodes[e.Args.OpName] = o, map[string]bool{}
			}
			o.us += e.Dur
			nodes[e.Args.OpName][e.Name] = true
		}
	}
	if runs == 0 {
		b.Fatalf("%s has no model_run event", files[0])
	}
	var ops []opTime
	for name, o := range byOp {
		o.nodes = len(nodes[name])
		ops = append(ops, *o)
	}
	slices.SortFunc(ops, func(x, y opTime) int { return cmp.Compare(y.us, x.us) })
	return ops, runs, runUS / float64(runs)
}
