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
	} {
		if got, ok := rs.Metric(c.name, c.unit, -1); !ok || got != c.want {
			t.Errorf("%s %s = %v, %v; want %v", c.name, c.unit, got, ok, c.want)
		}
	}
	if _, ok := rs.Metric("BenchmarkEmbed/go/batch1", "sent/s", -1); ok {
		t.Error("a missing benchmark has a value")
	}
	if n := len(rs); n != 4 {
		t.Errorf("%d benchmarks parsed, want 4", n)
	}
}

func TestRenderLoadedMachine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go-embed-1.txt", sampleBench)
	write("go-server.txt", sampleBench)
	write("js-corrections-1.json", `npm notice\n{
  "stack": "transformers.js", "transformers_js": "4.3.1", "onnxruntime_node": "1.30.0", "node": "v20", "texts": 83,
  "batch1": {"sentences_per_sec": 151.6, "p50_ms": 4.0}, "batch32": {"sentences_per_sec": 54.1}
}`)
	write("uptime-start.txt", " 14:52:16 up  1:27,  0 user,  load average: 2.70, 2.13, 2.13")
	write("commands.txt", "go test -bench X\n")
	in, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	md := Render(in)
	for _, want := range []string{
		"**The machine was shared and loaded** (1-minute load average 2.70",
		"| texts/s, Go ort backend (fused graph) vs Transformers.js (onnxruntime-node), corrections, batch 1: median of 1 alternated rounds (0.93×) | 141.4 | 151.6 | 0.93× | ≥ 1.2× |",
		"| texts/s, Go ort backend (fused graph) vs Transformers.js (onnxruntime-node), corrections, batch 32: median of 1 alternated rounds (3.30×) | 178.6 | 54.1 | 3.30× | ≥ 1.2× |",
		"| texts/s, Go ort backend (fused graph) vs Transformers.js, edge-cases, batch 1 | — | — | — | ≥ 1.2× |",
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
