package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Machine describes where the benchmarks ran.
type Machine struct {
	CPU                  string
	Cores                int
	MemoryGiB            float64
	Kernel, OS           string
	GoVersion            string
	Date                 time.Time
	UptimeStart          string // `uptime` before the first benchmark
	UptimeEnd            string // and after the last
	LoadStart, LoadEnd   float64
	ORTVersion, NodeInfo string
}

// readMachine reads /proc and the uptime files the script wrote into raw.
func readMachine(raw string) Machine {
	m := Machine{Cores: runtime.NumCPU(), GoVersion: runtime.Version(), Date: time.Now().UTC()}
	m.CPU = firstField("/proc/cpuinfo", "model name")
	if kb, err := strconv.ParseFloat(strings.TrimSuffix(firstField("/proc/meminfo", "MemTotal"), " kB"), 64); err == nil {
		m.MemoryGiB = kb / (1 << 20)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.OS = strings.Trim(firstFieldSep("/etc/os-release", "PRETTY_NAME", "="), `"`)
	m.UptimeStart, m.LoadStart = readUptime(raw + "/uptime-start.txt")
	m.UptimeEnd, m.LoadEnd = readUptime(raw + "/uptime-end.txt")
	return m
}

func firstField(path, key string) string { return firstFieldSep(path, key, ":") }

// firstFieldSep returns the value of the first "key SEP value" line of path.
func firstFieldSep(path, key, sep string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), sep)
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

var loadRE = regexp.MustCompile(`load average: ([0-9.]+)`)

// readUptime returns an `uptime` line and its 1-minute load average.
func readUptime(path string) (string, float64) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "not recorded", 0
	}
	line := strings.TrimSpace(string(b))
	if m := loadRE.FindStringSubmatch(line); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		return line, v
	}
	return line, 0
}

// Loaded reports whether another workload shared the machine.
func (m Machine) Loaded() bool { return m.LoadStart > 2 || m.LoadEnd > 2 }

func (m Machine) markdown() string {
	var b strings.Builder
	b.WriteString("| | |\n|---|---|\n")
	row := func(k, v string) { fmt.Fprintf(&b, "| %s | %s |\n", k, v) }
	row("date", m.Date.Format("2006-01-02 15:04 UTC"))
	row("CPU", fmt.Sprintf("%s, %d logical cores (GOMAXPROCS %d)", m.CPU, m.Cores, runtime.GOMAXPROCS(0)))
	row("memory", fmt.Sprintf("%.1f GiB", m.MemoryGiB))
	row("OS, kernel", m.OS+", Linux "+m.Kernel)
	row("Go", m.GoVersion)
	if m.ORTVersion != "" {
		row("ONNX Runtime (Go, ort backend)", m.ORTVersion)
	}
	if m.NodeInfo != "" {
		row("Transformers.js stack", m.NodeInfo)
	}
	row("`uptime` before", "`"+m.UptimeStart+"`")
	row("`uptime` after", "`"+m.UptimeEnd+"`")
	return b.String()
}
