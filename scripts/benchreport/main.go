// Command benchreport turns the raw outputs scripts/bench_report.sh
// collects — `go test -bench` outputs, scripts/jsref/bench.mjs JSON, the
// machine's `uptime` — into BENCHMARKS.md: the machine, the comparisons as
// ratios measured side by side, and one table per area.
//
//	go run ./scripts/benchreport -raw DIR -out BENCHMARKS.md
//
// DIR holds go-*.txt (`go test -bench` outputs, merged; go-*-int8.txt are
// runs on the int8 graph, LEXSONA_MODEL_VARIANT=int8, kept apart), js-SET.json
// (bench.mjs on text set SET — see textSets), commands.txt, uptime-start.txt /
// uptime-end.txt and the CPU counters of machine.go (otherCPU).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	raw := flag.String("raw", "", "folder of raw benchmark outputs")
	out := flag.String("out", "BENCHMARKS.md", "report to write")
	flag.Parse()
	if *raw == "" {
		fmt.Fprintln(os.Stderr, "usage: benchreport -raw DIR [-out BENCHMARKS.md]")
		os.Exit(2)
	}
	in, err := load(*raw)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, []byte(Render(in)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}

// load reads every raw output of dir.
func load(dir string) (Inputs, error) {
	in := Inputs{Machine: readMachine(dir), Go: Results{}, Int8: Results{}}
	goFiles, _ := filepath.Glob(filepath.Join(dir, "go-*.txt"))
	sort.Strings(goFiles)
	for _, f := range goFiles {
		r, err := os.Open(f)
		if err != nil {
			return in, err
		}
		into := in.Go
		if strings.HasSuffix(f, int8RunSuffix) {
			into = in.Int8
		}
		v, err := ParseGoBench(r, into)
		r.Close()
		if err != nil {
			return in, fmt.Errorf("%s: %v", f, err)
		}
		if v != "" {
			in.Machine.ORTVersion = v
		}
	}
	if len(in.Go) == 0 {
		return in, fmt.Errorf("no benchmark results in %s", dir)
	}
	in.JS = map[string]JSBench{}
	for _, set := range textSets {
		f := filepath.Join(dir, "js-"+set.Name+".json")
		if _, err := os.Stat(f); err != nil {
			continue // Transformers.js did not run: dashes in the report
		}
		j, err := ReadJSBench(f)
		if err != nil {
			return in, err
		}
		in.JS[set.Name] = j
		in.Machine.NodeInfo = fmt.Sprintf("Transformers.js %s on onnxruntime-node %s, Node %s", j.TransformersJS, j.OnnxruntimeNode, j.Node)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "commands.txt")); err == nil {
		in.Commands = strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	return in, nil
}
