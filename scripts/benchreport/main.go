// Command benchreport turns the raw outputs scripts/bench_report.sh
// collects — `go test -bench` outputs, scripts/jsref/bench.mjs JSON, the
// machine's `uptime` — into BENCHMARKS.md: the machine, the comparisons as
// ratios measured side by side, and one table per area.
//
//	go run ./scripts/benchreport -raw DIR -out BENCHMARKS.md
//
// DIR holds go-embed-N.txt (BenchmarkEmbed, round N), js-SET-N.json
// (bench.mjs on text set SET — see textSets — right after round N), any other
// go-*.txt, commands.txt and uptime-start.txt / uptime-end.txt.
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
	in := Inputs{Machine: readMachine(dir), Go: Results{}}
	goFiles, _ := filepath.Glob(filepath.Join(dir, "go-*.txt"))
	sort.Strings(goFiles)
	for _, f := range goFiles {
		r, err := os.Open(f)
		if err != nil {
			return in, err
		}
		into := in.Go
		if strings.HasPrefix(filepath.Base(f), "go-embed-") {
			into = Results{}
			in.Embed = append(in.Embed, into)
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
	if len(in.Go) == 0 && len(in.Embed) == 0 {
		return in, fmt.Errorf("no benchmark results in %s", dir)
	}
	in.JS = map[string][]JSBench{}
	for _, set := range textSets {
		jsFiles, _ := filepath.Glob(filepath.Join(dir, "js-"+set.Name+"-[0-9]*.json"))
		sort.Strings(jsFiles)
		for _, f := range jsFiles {
			j, err := ReadJSBench(f)
			if err != nil {
				return in, err
			}
			in.JS[set.Name] = append(in.JS[set.Name], j)
			in.Machine.NodeInfo = fmt.Sprintf("Transformers.js %s on onnxruntime-node %s, Node %s", j.TransformersJS, j.OnnxruntimeNode, j.Node)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "commands.txt")); err == nil {
		in.Commands = strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	return in, nil
}
