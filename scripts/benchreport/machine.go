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
	// Wall is the time from the first benchmark to the end of the last, and
	// OtherCPU the CPU time every process but the benchmarks used meanwhile
	// (busy time in /proc/stat less the user and system time of the
	// script's children); OtherKnown is false when either was not recorded.
	Wall, OtherCPU time.Duration
	OtherKnown     bool
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
	if fi, err := os.Stat(raw + "/uptime-end.txt"); err == nil {
		m.Date = fi.ModTime().UTC() // when the benchmarks ended, not when the report was rendered
	}
	m.Wall, m.OtherCPU, m.OtherKnown = otherCPU(raw)
	return m
}

// clockTicks is USER_HZ, the unit of /proc/stat (100 on every Linux port
// that matters here).
const clockTicks = 100

// otherCPU reads cpu-start.txt and cpu-end.txt (the first line of /proc/stat
// before and after) and cpu-children.txt (bash's `times`: the shell's own
// user and system time, then its children's, "0m12.5s 0m1.2s").
func otherCPU(raw string) (wall, other time.Duration, ok bool) {
	busy := func(name string) (busy, total int64, ok bool) {
		b, err := os.ReadFile(raw + "/" + name)
		if err != nil {
			return 0, 0, false
		}
		f := strings.Fields(string(b))
		if len(f) < 8 || f[0] != "cpu" {
			return 0, 0, false
		}
		for i, s := range f[1:] {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return 0, 0, false
			}
			if i >= 8 { // guest time is already counted in user
				break
			}
			total += v
			if i != 3 && i != 4 && i != 7 { // idle, iowait, steal
				busy += v
			}
		}
		return busy, total, true
	}
	b0, t0, ok0 := busy("cpu-start.txt")
	b1, t1, ok1 := busy("cpu-end.txt")
	kids, err := os.ReadFile(raw + "/cpu-children.txt")
	if !ok0 || !ok1 || err != nil {
		return 0, 0, false
	}
	lines := strings.Split(strings.TrimSpace(string(kids)), "\n")
	var ours time.Duration
	for _, f := range strings.Fields(strings.Join(lines, " ")) {
		d, err := time.ParseDuration(f)
		if err != nil {
			return 0, 0, false
		}
		ours += d
	}
	tick := time.Second / clockTicks
	cores := int64(runtime.NumCPU())
	wall = time.Duration((t1-t0)/cores) * tick
	other = max(0, time.Duration(b1-b0)*tick-ours)
	return wall, other, true
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

// OtherCores is the CPU other processes used while the benchmarks ran, in
// cores on average.
func (m Machine) OtherCores() float64 {
	if !m.OtherKnown || m.Wall <= 0 {
		return 0
	}
	return m.OtherCPU.Seconds() / m.Wall.Seconds()
}

// Loaded reports whether another workload shared the machine: other
// processes used over a tenth of a core on average, or, where that was not
// recorded, the load average before or after exceeded 2.
func (m Machine) Loaded() bool {
	if m.OtherKnown {
		return m.OtherCores() > 0.1
	}
	return m.LoadStart > 2 || m.LoadEnd > 2
}

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
	if m.OtherKnown {
		row("CPU used by other processes meanwhile", fmt.Sprintf("%.1f s over %.0f s (%.2f cores on average)", m.OtherCPU.Seconds(), m.Wall.Seconds(), m.OtherCores()))
	}
	return b.String()
}
