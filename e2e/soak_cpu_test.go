package e2e

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The soak's CPU accounting, for its log only: on a small machine the tail
// latency it judges depends as much on what else runs there as on the
// service, so it logs, per second, the CPU time of the server, of the test
// process (the load generator) and of every other process, and the
// latencies of the requests made while the others were quiet. Linux only
// (/proc); elsewhere nothing is logged.

// quietOthers is the CPU, in cores, that other processes may use in a second
// for it to count as quiet.
const quietOthers = 0.15

// clockTicks is USER_HZ, the unit of /proc CPU times (100 on Linux).
const clockTicks = 100

// cpuSample is the CPU time used so far (in clock ticks) by the whole
// machine (not idle), the server and this process, at a time since the load
// started.
type cpuSample struct {
	at                  time.Duration
	total, server, self int64
	ok                  bool
}

func readCPU(at time.Duration, pid int) cpuSample {
	s := cpuSample{at: at}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s
	}
	line, _, _ := strings.Cut(string(b), "\n")
	for i, f := range strings.Fields(line)[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		v, _ := strconv.ParseInt(f, 10, 64)
		s.total += v
	}
	var err1, err2 error
	s.server, err1 = procTicks(strconv.Itoa(pid))
	s.self, err2 = procTicks("self")
	s.ok = err1 == nil && err2 == nil
	return s
}

// procTicks is the user+system CPU time of a process, from /proc/PID/stat.
func procTicks(pid string) (int64, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // after the command name
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%s/stat", pid)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad /proc/%s/stat", pid)
	}
	return u + k, nil
}

// cpuUse is the CPU used, in cores, during the second before a sample.
type cpuUse struct {
	at                    time.Duration // end of the second
	server, self, another float64
}

// cpuUses turns consecutive samples taken from `from` on into per-interval
// use.
func cpuUses(samples []cpuSample, from time.Duration) []cpuUse {
	var out []cpuUse
	for i := 1; i < len(samples); i++ {
		a, b := samples[i-1], samples[i]
		if !a.ok || !b.ok || a.at < from {
			continue
		}
		secs := (b.at - a.at).Seconds() * clockTicks
		srv, self := float64(b.server-a.server)/secs, float64(b.self-a.self)/secs
		out = append(out, cpuUse{at: b.at, server: srv, self: self, another: max(0, float64(b.total-a.total)/secs-srv-self)})
	}
	return out
}

// cpuSummary renders the average use of each party and how often the other
// processes were quiet.
func cpuSummary(u []cpuUse) string {
	if len(u) == 0 {
		return "no CPU accounting (/proc unreadable)"
	}
	var srv, self, other, peak float64
	quiet := 0
	for _, x := range u {
		srv, self, other, peak = srv+x.server, self+x.self, other+x.another, max(peak, x.another)
		if x.another < quietOthers {
			quiet++
		}
	}
	n := float64(len(u))
	return fmt.Sprintf("CPU after the warm-up (cores): server %.2f, load generator %.2f, other processes %.2f on average (peak %.2f; quiet, under %.2f, in %d of %d seconds)",
		srv/n, self/n, other/n, peak, quietOthers, quiet, len(u))
}

// timedLatency is one request's latency and when it started.
type timedLatency struct {
	at time.Duration
	d  time.Duration
}

// quietLatencies keeps the requests that started and ended in quiet seconds.
func quietLatencies(l []timedLatency, u []cpuUse) []time.Duration {
	quiet := func(t time.Duration) bool {
		// the first second ending at or after t
		i, _ := slices.BinarySearchFunc(u, t, func(x cpuUse, t time.Duration) int { return cmp.Compare(x.at, t) })
		return i < len(u) && u[i].at-t <= time.Second+100*time.Millisecond && u[i].another < quietOthers
	}
	var out []time.Duration
	for _, x := range l {
		if quiet(x.at) && quiet(x.at+x.d) {
			out = append(out, x.d)
		}
	}
	slices.Sort(out)
	return out
}
