package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Result is one benchmark line: its iterations and metrics by unit
// ("ns/op", "sent/s", "p50-ms", "B/op", …).
type Result struct {
	Name       string
	Iterations int64
	Metrics    map[string]float64
}

// Results are the benchmark lines of a `go test -bench` output, by name
// (without the -GOMAXPROCS suffix), in the order they appeared; a name seen
// more than once keeps every line.
type Results map[string][]Result

var (
	benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+(\d+)\s+(.+)$`)
	ortLine   = regexp.MustCompile(`\(ONNX Runtime ([0-9.]+)\)`)
)

// ParseGoBench reads `go test -bench` output. It also returns the ONNX
// Runtime version an ort embedder logged, if any.
func ParseGoBench(r io.Reader, into Results) (ortVersion string, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := ortLine.FindStringSubmatch(line); m != nil {
			ortVersion = m[1]
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.ParseInt(m[2], 10, 64)
		res := Result{Name: m[1], Iterations: n, Metrics: map[string]float64{}}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return ortVersion, fmt.Errorf("%q: metric %q is not a number", line, f[i])
			}
			res.Metrics[f[i+1]] = v
		}
		into[res.Name] = append(into[res.Name], res)
	}
	return ortVersion, sc.Err()
}

// Metric returns unit of the i-th line of name (i < 0: the median over
// every line), and whether there was one.
func (rs Results) Metric(name, unit string, i int) (float64, bool) {
	lines := rs[name]
	var vals []float64
	for j, l := range lines {
		if v, ok := l.Metrics[unit]; ok && (i < 0 || i == j) {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return 0, false
	}
	slices.Sort(vals)
	return vals[len(vals)/2], true
}

// JSBench is what scripts/jsref/bench.mjs prints (File is where it was read).
type JSBench struct {
	Stack           string     `json:"stack"`
	Mode            string     `json:"mode"`
	TransformersJS  string     `json:"transformers_js"`
	OnnxruntimeNode string     `json:"onnxruntime_node"`
	Node            string     `json:"node"`
	Texts           int        `json:"texts"`
	Batch1          JSSettings `json:"batch1"`
	Batch32         JSSettings `json:"batch32"`
	File            string     `json:"-"`
}

// JSSettings is one batch size's result.
type JSSettings struct {
	BatchSize          int     `json:"batch_size"`
	Sentences          int     `json:"sentences"`
	Seconds            float64 `json:"seconds"`
	SentencesPerSec    float64 `json:"sentences_per_sec"`
	P50ms              float64 `json:"p50_ms"`
	SentencesPerCPUSec float64 `json:"sentences_per_cpu_sec"`
}

// ReadJSBench reads one bench.mjs output file (its last JSON object: npm
// may print before it).
func ReadJSBench(path string) (JSBench, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return JSBench{}, err
	}
	start := strings.Index(string(b), "{\n")
	if start < 0 {
		return JSBench{}, fmt.Errorf("%s: no JSON object (did bench.mjs fail?)", path)
	}
	var j JSBench
	if err := json.Unmarshal(b[start:], &j); err != nil {
		return JSBench{}, fmt.Errorf("%s: %v", path, err)
	}
	if j.Batch1.SentencesPerSec <= 0 || j.Batch32.SentencesPerSec <= 0 {
		return JSBench{}, fmt.Errorf("%s: no batch1/batch32 throughput", path)
	}
	j.File = path
	return j, nil
}
