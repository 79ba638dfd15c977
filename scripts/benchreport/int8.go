package main

import (
	"fmt"
	"slices"
	"strings"
)

// int8RunSuffix ends the raw files of benchmarks run on the int8 graph
// (LEXSONA_MODEL_VARIANT=int8), which load keeps in Inputs.Int8.
const int8RunSuffix = "-int8.txt"

// vsJSInt8 writes the int8 rows of BenchmarkVersusTransformersJS result name
// (measured as how says): the int8 graph on the Go ort backend against the
// fused float32 graph, and against Transformers.js running the same int8
// file (its dtype q8), each the median of the per-round ratios.
func (in Inputs) vsJSInt8(p printer, name, how, size string) {
	metric := func(unit string) (float64, bool) { return in.Go.Metric(name, unit, -1) }
	q8, ok1 := metric("ort-int8-sent/s")
	fp32, ok2 := metric("ort-sent/s")
	jsQ8, ok3 := metric("js-q8-sent/s")
	x, ok4 := metric("int8-x-vs-fp32")
	x25, ok5 := metric("int8-x-vs-fp32-p25")
	target := "≥ 2×"
	if size != "1" {
		target = "≥ 1.5×"
	}
	p("| texts/s, Go ort backend on the int8 graph vs the float32 (fused) graph, %s (lower quartile %s) | %s | %s | %s | %s |\n",
		how, times(x25, ok5), num(q8, ok1, 1), num(fp32, ok2, 1), times(x, ok4), target)
	xj, ok6 := metric("int8-x-vs-js-q8")
	xj25, ok7 := metric("int8-x-vs-js-q8-p25")
	p("| texts/s, Go ort backend on the int8 graph vs Transformers.js on the same file (dtype q8), %s (lower quartile %s) | %s | %s | %s | ≥ 1.3× |\n",
		how, times(xj25, ok7), num(q8, ok1, 1), num(jsQ8, ok3, 1), times(xj, ok6))
}

// httpInt8Comparisons writes the comparison rows of the HTTP load on the
// int8 graph against the float32 one (two runs of the same benchmark).
func (in Inputs) httpInt8Comparisons(p printer) {
	const name = "BenchmarkHTTPClassifyLoad/clients=64/batching=on/workers=2"
	q8, ok1 := in.Int8.Metric(name, "req/s", -1)
	fp32, ok2 := in.Go.Metric(name, "req/s", -1)
	p("| POST /v1/classify req/s, 64 clients, micro-batching on (2 workers), int8 graph vs float32 graph, separate runs (their offline texts/s in the HTTP load table show how loaded the machine was during each) | %s | %s | %s | — |\n",
		num(q8, ok1, 1), num(fp32, ok2, 1), ratio(q8, fp32, ok1, ok2))
	q99, ok3 := in.Int8.Metric(name, "p99_ms", -1)
	f99, ok4 := in.Go.Metric(name, "p99_ms", -1)
	p("| the same, p99 latency ms (lower is better) | %s | %s | %s | — |\n", num(q99, ok3, 1), num(f99, ok4, 1), ratio(q99, f99, ok3, ok4))
}

// profileGraphs are the graphs BenchmarkORTProfile profiles, by the prefix
// of its metrics.
var profileGraphs = []struct{ prefix, label string }{{"fp32", "float32 (fused)"}, {"int8", "int8"}}

// profileOps returns the operator types BenchmarkORTProfile reported for
// result name (those taking at least 2% of either graph's time), the
// slowest on the float32 graph first.
func (in Inputs) profileOps(name string) []string {
	seen := map[string]bool{}
	for _, l := range in.Go[name] {
		for unit := range l.Metrics {
			for _, g := range profileGraphs {
				op, ok := strings.CutPrefix(unit, g.prefix+"-")
				if !ok {
					continue
				}
				if op, ok = strings.CutSuffix(op, "-us/text"); ok && op != "ops" && op != "run" {
					seen[op] = true
				}
			}
		}
	}
	ops := make([]string, 0, len(seen))
	for op := range seen {
		ops = append(ops, op)
	}
	us := func(g, op string) float64 {
		v, _ := in.Go.Metric(name, g+"-"+op+"-us/text", -1)
		return v
	}
	slices.SortFunc(ops, func(a, b string) int {
		for _, g := range profileGraphs {
			if d := us(g.prefix, b) - us(g.prefix, a); d != 0 {
				if d > 0 {
					return 1
				}
				return -1
			}
		}
		return strings.Compare(a, b)
	})
	return ops
}

// profile writes BenchmarkORTProfile's per-operator times of the float32
// and int8 graphs, per batch size.
func (in Inputs) profile(p printer) {
	p("## Where the time goes: float32 vs int8, per operator\n\n")
	p("ONNX Runtime's own profiler (`BenchmarkORTProfile`) on bare sessions of the fused float32 graph and of the int8 graph, passes alternated, on the padded sub-batches the pipeline builds from the corrections text set; both graphs run in batches as the pipeline runs them (the int8 graph scales its activations token by token, so batch-mates leave a text's vector unchanged). µs per text; an operator type is listed when it takes at least 2%% of either graph's time (a dash: under 2%% of that graph's, or not in it). The profiler's bookkeeping makes every number larger than an unprofiled call: the shares are what it is for.\n\n")
	for _, size := range []string{"1", "32"} {
		name := "BenchmarkORTProfile/batch" + size
		var passes int64
		if ls := in.Go[name]; len(ls) > 0 {
			passes = ls[len(ls)-1].Iterations
		}
		p("### batch %s (%d passes)\n\n", size, passes)
		p("| operator type | float32 µs/text | float32 share | int8 µs/text | int8 share | float32 / int8 |\n|---|---|---|---|---|---|\n")
		totals := make([]float64, len(profileGraphs))
		for i, g := range profileGraphs {
			totals[i], _ = in.Go.Metric(name, g.prefix+"-ops-us/text", -1)
		}
		row := func(label, unit string, shares bool) {
			cells := []string{label}
			vals := make([]float64, len(profileGraphs))
			oks := make([]bool, len(profileGraphs))
			for i, g := range profileGraphs {
				vals[i], oks[i] = in.Go.Metric(name, g.prefix+"-"+unit, -1)
				share := ""
				if shares {
					share = none
					if oks[i] && totals[i] > 0 {
						share = fmt.Sprintf("%.1f%%", 100*vals[i]/totals[i])
					}
				}
				cells = append(cells, num(vals[i], oks[i], 1), share)
			}
			cells = append(cells, ratio(vals[0], vals[1], oks[0], oks[1]))
			p("| %s |\n", strings.Join(cells, " | "))
		}
		for _, op := range in.profileOps(name) {
			row("`"+op+"`", op+"-us/text", true)
		}
		row("all operators", "ops-us/text", true)
		row("session runs (operators and the session's own work)", "run-us/text", false)
		p("\n")
	}
}
