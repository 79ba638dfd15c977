package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sampleBench = `goos: linux
pkg: github.com/lexsona/lexsona/models
2026/11/21 14:53:43 INFO embedder: ort model=/m/model.onnx ort_lib="/x/libonnxruntime.so.1 (ONNX Runtime 1.30.0)"
BenchmarkEmbed/corrections/ort/batch1-2  	     530	   7069942 ns/op	         3.879 p50-ms	       141.4 sent/s
BenchmarkEmbed/corrections/ort/batch32-2 	      30	 179127348 ns/op	       178.6 sent/s
--- BENCH: BenchmarkHTTPClassifyLoad/clients=64/batching=off-2
    load_bench_test.go:109: clients=64/batching=off: 1000 requests: 266.1 req/s
BenchmarkHTTPClassifyLoad/clients=64/batching=off-2 	    1000	   3757869 ns/op	       325.6 offline_texts/s	       235.1 p50_ms	       457.3 p99_ms	       266.1 req/s	         0.8174 x_offline
BenchmarkTokenize 	 10000	 12345 ns/op
BenchmarkVersusTransformersJS/corrections/batch1-2         	      15	1060124660 ns/op	         1.112 fused-x	       276.3 js-sent/s	       335.5 ort-sent/s	       300.7 ort-unfused-sent/s	         1.089 unfused-x-vs-js	         1.214 x-vs-js	         1.156 x-vs-js-p25
PASS
`

// sampleInt8 is what the int8 rows are rendered from: the int8 metrics of
// BenchmarkVersusTransformersJS, BenchmarkORTOverhead's int8 runs and
// BenchmarkORTProfile.
const sampleInt8 = `pkg: github.com/lexsona/lexsona/models
BenchmarkVersusTransformersJS/corrections/batch32-2        	      15	6862254732 ns/op	         1.013 fused-x	         2.059 int8-x-vs-fp32	         1.554 int8-x-vs-fp32-p25	         1.576 int8-x-vs-js-q8	         1.339 int8-x-vs-js-q8-p25	       112.8 js-q8-sent/s	        65.58 js-sent/s	       206.3 ort-int8-sent/s	        89.87 ort-sent/s	        87.87 ort-unfused-sent/s	         1.342 unfused-x-vs-js	         1.470 x-vs-js	         1.186 x-vs-js-p25
BenchmarkORTOverhead/batch1-2   	      97	 123915016 ns/op	         2.5 overhead-%
BenchmarkORTOverhead/int8/batch1-2         	      88	  57433028 ns/op	         4.25 overhead-%
BenchmarkORTProfile/batch1-2         	      20	 931729474 ns/op	      1261 fp32-Attention-us/text	       291.3 fp32-BiasGelu-us/text	      2960 fp32-MatMul-us/text	       425.5 fp32-SkipLayerNormalization-us/text	      5014 fp32-ops-us/text	      5440 fp32-run-us/text	       298.6 int8-BiasGelu-us/text	        77.69 int8-DynamicQuantizeLinear-us/text	      1378 int8-DynamicQuantizeMatMul-us/text	       820.4 int8-QAttention-us/text	       410.4 int8-SkipLayerNormalization-us/text	      3067 int8-ops-us/text	      3463 int8-run-us/text
`

// sampleServerInt8 is BenchmarkHTTPClassifyLoad run on the int8 graph.
const sampleServerInt8 = `pkg: github.com/lexsona/lexsona/server
BenchmarkHTTPClassifyLoad/clients=64/batching=on/workers=2-2         	    1000	   6759710 ns/op	       120.5 offline_texts/s	       212.0 p50_ms	       343.2 p99_ms	       295.8 req/s	         2.455 x_offline
BenchmarkHTTPClassifyLoad/clients=64/batching=off-2 	    1000	   3757869 ns/op	       500.0 offline_texts/s	       150.0 p50_ms	       300.0 p99_ms	       400.0 req/s	         0.8 x_offline
`

// sampleServerFP32 is the float32 run sampleServerInt8 is compared with.
const sampleServerFP32 = `BenchmarkHTTPClassifyLoad/clients=64/batching=on/workers=2-2         	    1000	   6759710 ns/op	        56.61 offline_texts/s	       425.1 p50_ms	       686.5 p99_ms	       147.9 req/s	         2.613 x_offline
`

func TestRenderInt8(t *testing.T) {
	dir := t.TempDir()
	for name, s := range map[string]string{
		"go-models.txt":      sampleInt8,
		"go-server.txt":      sampleServerFP32,
		"go-server-int8.txt": sampleServerInt8,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := in.Go.Metric("BenchmarkHTTPClassifyLoad/clients=64/batching=off", "req/s", -1); ok {
		t.Errorf("the int8 run was merged into the float32 results (batching=off req/s %v)", v)
	}
	md := Render(in)
	for _, want := range []string{
		"| texts/s, Go ort backend on the int8 graph vs the float32 (fused) graph, corrections, batch 32, passes alternated on the same batches, median of 15 rounds (lower quartile 1.55×) | 206.3 | 89.9 | 2.06× | ≥ 1.5× |",
		"| texts/s, Go ort backend on the int8 graph vs Transformers.js on the same file (dtype q8), corrections, batch 32, passes alternated on the same batches, median of 15 rounds (lower quartile 1.34×) | 206.3 | 112.8 | 1.58× | ≥ 1.3× |",
		"| texts/s, Go ort backend on the int8 graph vs the float32 (fused) graph, corrections, batch 1, not run (lower quartile —) | — | — | — | ≥ 2× |",
		"| ort pipeline (tokenize, sort, pad, pool) vs the bare session, batch 1, calls alternated | 2.5% extra time | bare session | 1.02× | < 5% |",
		"| ort pipeline (tokenize, sort, pad, pool) vs the bare session, int8 graph, batch 1, calls alternated | 4.2% extra time | bare session | 1.04× | < 5% |",
		"| ort pipeline (tokenize, sort, pad, pool) vs the bare session, int8 graph, batch 32, calls alternated | —% extra time | bare session | —× | < 5% |",
		"| POST /v1/classify req/s, 64 clients, micro-batching on (2 workers), int8 graph vs float32 graph, separate runs (their offline texts/s in the HTTP load table show how loaded the machine was during each) | 295.8 | 147.9 | 2.00× | — |",
		"| the same, p99 latency ms (lower is better) | 343.2 | 686.5 | 0.50× | — |",
		"| float32 | batching=on/workers=2 | 1000 | 147.9 | 425.1 | 686.5 | 56.6 | 2.61 |",
		"| float32 | batching=off | 0 | — | — | — | — | — |",
		"| int8 | batching=on/workers=2 | 1000 | 295.8 | 212.0 | 343.2 | 120.5 | 2.46 |",
		"| int8 | batching=off | 1000 | 400.0 | 150.0 | 300.0 | 500.0 | 0.80 |",
		"### batch 1 (20 passes)",
		"| `MatMul` | 2960.0 | 59.0% | — | — | — |",
		"| `DynamicQuantizeMatMul` | — | — | 1378.0 | 44.9% | — |",
		"| `SkipLayerNormalization` | 425.5 | 8.5% | 410.4 | 13.4% | 1.04× |",
		"| all operators | 5014.0 | 100.0% | 3067.0 | 100.0% | 1.63× |",
		"| session runs (operators and the session's own work) | 5440.0 |  | 3463.0 |  | 1.57× |",
		"### batch 32 (0 passes)",
		"| all operators | — | — | — | — | — |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// The float32 graph's slowest operator first, then the int8-only ones.
	if i, j := strings.Index(md, "`MatMul`"), strings.Index(md, "`Attention`"); i < 0 || j < 0 || i > j {
		t.Errorf("operators not ordered by float32 time: MatMul at %d, Attention at %d", i, j)
	}
	if t.Failed() {
		t.Log(md)
	}
}

func TestParseGoBench(t *testing.T) {
	rs := Results{}
	v, err := ParseGoBench(strings.NewReader(sampleBench), rs)
	if err != nil {
		t.Fatal(err)
	}
	if v != "1.30.0" {
		t.Errorf("ONNX Runtime version %q", v)
	}
	for _, c := range []struct {
		name, unit string
		want       float64
	}{
		{"BenchmarkEmbed/corrections/ort/batch1", "sent/s", 141.4},
		{"BenchmarkEmbed/corrections/ort/batch1", "p50-ms", 3.879},
		{"BenchmarkEmbed/corrections/ort/batch32", "ns/op", 179127348},
		{"BenchmarkHTTPClassifyLoad/clients=64/batching=off", "x_offline", 0.8174},
		{"BenchmarkTokenize", "ns/op", 12345},
		{"BenchmarkVersusTransformersJS/corrections/batch1", "x-vs-js-p25", 1.156},
	} {
		if got, ok := rs.Metric(c.name, c.unit, -1); !ok || got != c.want {
			t.Errorf("%s %s = %v, %v; want %v", c.name, c.unit, got, ok, c.want)
		}
	}
	if _, ok := rs.Metric("BenchmarkEmbed/go/batch1", "sent/s", -1); ok {
		t.Error("a missing benchmark has a value")
	}
	if n := len(rs); n != 5 {
		t.Errorf("%d benchmarks parsed, want 5", n)
	}
}

func TestRenderLoadedMachine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go-embed.txt", sampleBench)
	write("go-server.txt", sampleBench)
	write("js-corrections.json", `npm notice\n{
  "stack": "transformers.js", "transformers_js": "4.3.1", "onnxruntime_node": "1.30.0", "node": "v20", "texts": 83,
  "batch1": {"sentences_per_sec": 151.6, "p50_ms": 4.0}, "batch32": {"sentences_per_sec": 54.1}
}`)
	write("uptime-start.txt", " 14:52:16 up  1:27,  0 user,  load average: 2.70, 2.13, 2.13")
	// 100 s on 2 cores; 150 s busy of which the benchmarks used 120 s.
	write("cpu-start.txt", "cpu  1000 0 200 5000 10 0 0 7 0 0\n")
	write("cpu-end.txt", "cpu  14000 0 2200 10000 10 0 0 7 0 0\n")
	write("cpu-children.txt", "0m0.500s 0m0.100s\n1m59.0s 0m0.400s\n")
	write("commands.txt", "go test -bench X\n")
	in, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	md := Render(in)
	for _, want := range []string{
		"**The machine was shared**: other processes used 0.30 of its 2 cores on average",
		"| CPU used by other processes meanwhile | 30.0 s over 100 s (0.30 cores on average) |",
		"| texts/s, Go ort backend (fused graph) vs Transformers.js (onnxruntime-node), corrections, batch 1, passes alternated on the same batches, median of 15 rounds (lower quartile 1.16×) | 335.5 | 276.3 | 1.21× | ≥ 1.2× |",
		"| texts/s, Go ort backend on the graph as exported vs Transformers.js, corrections, batch 1, passes alternated on the same batches, median of 15 rounds | 300.7 | 276.3 | 1.09× | — |",
		"| texts/s, ort on the fused graph vs the graph as exported, corrections, batch 1, passes alternated on the same batches, median of 15 rounds | 335.5 | 300.7 | 1.11× | — |",
		"| texts/s, Go ort backend (fused graph) vs Transformers.js (onnxruntime-node), edge-cases, batch 1, not run (lower quartile —) | — | — | — | ≥ 1.2× |",
		"| Transformers.js 4.3.1 pipeline | 151.6 | 4.00 | 54.1 |",
		"Transformers.js 4.3.1 on onnxruntime-node 1.30.0, Node v20",
		"| float32 | batching=off | 1000 | 266.1 | 235.1 | 457.3 | 325.6 | 0.82 |",
		"ONNX Runtime (Go, ort backend) | 1.30.0",
		"go test -bench X",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
}
