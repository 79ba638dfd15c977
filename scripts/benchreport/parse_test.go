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
		"| batching=off | 1000 | 266.1 | 235.1 | 457.3 | 325.6 | 0.82 |",
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
