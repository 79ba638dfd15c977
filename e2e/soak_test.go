package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
)

// Soak settings: LEXSONA_SOAK=1 runs it; LEXSONA_SOAK_DURATION and
// LEXSONA_SOAK_RATE change the length (default 3m, of which the first 30 s
// warm up) and the request rate (default 200/s); LEXSONA_SOAK_TEXTS=N makes
// the classify texts cycle through N distinct ones (default: all distinct).
const (
	soakWarmUp  = 30 * time.Second
	soakWorkers = 64
)

// TestSoak sends a fixed rate of mixed requests (40% POST /v1/classify, 40%
// POST /v1/corrections, 20% GET /v1/persona) to the binary on loopback for
// a few minutes, samples its resident memory (VmRSS) every second, and
// checks after a 30 s warm-up that no request failed, that memory stays
// flat (the median of the last 30 s within 10% of the median of the first
// 30 s after the warm-up) and that on every route p99 latency is within 2×
// of p50 (the p50 and p99 of the whole mix are logged too). It also logs the
// CPU used by the server, by the test itself and by other processes, and the
// latencies of the seconds in which other processes were quiet (see
// soak_cpu_test.go), since on a small machine they decide the tail as much
// as the service does.
//
//	LEXSONA_SOAK=1 go test ./e2e/ -run Soak -v -timeout 15m
func TestSoak(t *testing.T) {
	if !testenv.Required(testenv.SoakEnv) {
		t.Skip("a soak of a few minutes: run with LEXSONA_SOAK=1 (see the package doc)")
	}
	dur, rate := 3*time.Minute, 200
	if s := testenv.Knob(testenv.SoakDurationEnv); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < soakWarmUp+time.Minute {
			t.Fatalf("LEXSONA_SOAK_DURATION=%q: want a duration of at least %s", s, soakWarmUp+time.Minute)
		}
		dur = d
	}
	if s := testenv.Knob(testenv.SoakRateEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 5000 {
			t.Fatalf("LEXSONA_SOAK_RATE=%q: want 1 to 5000", s)
		}
		rate = n
	}
	distinct := 0
	if s := testenv.Knob(testenv.SoakTextsEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			t.Fatalf("LEXSONA_SOAK_TEXTS=%q: want a count of distinct classify texts (0: all distinct)", s)
		}
		distinct = n
	}
	bin := MustBuildBinary(t)
	p := MustStartServe(t, bin, filepath.Join(t.TempDir(), "soak.db"))
	if _, err := p.WaitReady(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	c := NewClient(p.Base, soakWorkers)
	pid := p.Cmd.Process.Pid

	var samples []rssSample
	var lat []time.Duration                // after the warm-up
	byKind := map[string][]time.Duration{} // the same, per route
	timed := map[string][]timedLatency{}   // the same with start times, for the log
	var cpu []cpuSample
	var latMu sync.Mutex
	var sent, failed, late atomic.Int64
	var firstFail atomic.Value
	jobs := make(chan int, soakWorkers)
	var wg sync.WaitGroup
	start := time.Now()
	for range soakWorkers {
		wg.Go(func() {
			for i := range jobs {
				method, path, body := soakRequest(i, distinct)
				t0 := time.Now()
				r, err := c.Do(method, path, "application/json", body, nil)
				d := time.Since(t0)
				sent.Add(1)
				if err != nil || r.Status >= 300 {
					failed.Add(1)
					firstFail.CompareAndSwap(nil, fmt.Sprintf("%s %s: %v %d %s", method, path, err, r.Status, clipBody(r.Body)))
				}
				if t0.Sub(start) >= soakWarmUp {
					latMu.Lock()
					kind := method + " " + strings.SplitN(path, "?", 2)[0]
					lat, byKind[kind] = append(lat, d), append(byKind[kind], d)
					timed[kind] = append(timed[kind], timedLatency{t0.Sub(start), d})
					latMu.Unlock()
				}
			}
		})
	}
	tick := time.NewTicker(time.Second / time.Duration(rate))
	rss := time.NewTicker(time.Second)
	for i := 0; time.Since(start) < dur; {
		select {
		case <-tick.C:
			select {
			case jobs <- i:
			default:
				late.Add(1) // every worker busy: the server fell behind the rate
			}
			i++
		case <-rss.C:
			kb, err := vmRSS(pid)
			if err != nil {
				t.Fatal(err)
			}
			samples = append(samples, rssSample{time.Since(start), kb})
			cpu = append(cpu, readCPU(time.Since(start), pid))
		}
	}
	tick.Stop()
	rss.Stop()
	close(jobs)
	wg.Wait()
	p.Stop(t)

	var early, lateRSS []int64
	for _, s := range samples {
		switch {
		case s.at >= soakWarmUp && s.at < soakWarmUp+30*time.Second:
			early = append(early, s.rss)
		case s.at >= dur-30*time.Second:
			lateRSS = append(lateRSS, s.rss)
		}
	}
	e, l := median(early), median(lateRSS)
	growth := 100 * float64(l-e) / float64(e)
	slices.Sort(lat)
	p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
	t.Logf("soak: %s at %d req/s: %d sent, %d failed, %d not sent in time (all %d workers busy)",
		dur, rate, sent.Load(), failed.Load(), late.Load(), soakWorkers)
	t.Logf("VmRSS: %d kB after the warm-up, %d kB at the end (%+.1f%%), max %d kB; latency after the warm-up: p50 %s, p99 %s (%.2f×)",
		e, l, growth, maxRSS(samples), p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond), float64(p99)/float64(p50))
	for kind, l := range byKind {
		slices.Sort(l)
		t.Logf("  %-22s %6d requests: p50 %s, p99 %s, max %s", kind, len(l), l[len(l)/2].Round(10*time.Microsecond), l[len(l)*99/100].Round(10*time.Microsecond), l[len(l)-1].Round(10*time.Microsecond))
	}
	t.Logf("VmRSS samples (s:kB): %s", rssTrace(samples))
	// Other processes on the same cores delay the server's and the load
	// generator's threads by whole scheduler slices: the latencies of the
	// quiet seconds tell the service's own tail from that noise.
	uses := cpuUses(cpu, soakWarmUp)
	t.Log(cpuSummary(uses))
	for kind := range byKind {
		if q := quietLatencies(timed[kind], uses); len(q) >= 100 {
			t.Logf("  %-22s %6d requests in quiet seconds: p50 %s, p99 %s", kind, len(q), q[len(q)/2].Round(10*time.Microsecond), q[len(q)*99/100].Round(10*time.Microsecond))
		}
	}
	if n := failed.Load(); n > 0 {
		t.Errorf("%d requests failed; first: %v", n, firstFail.Load())
	}
	if growth > 10 {
		t.Errorf("resident memory grew %.1f%% after the warm-up (%d → %d kB): want under 10%%", growth, e, l)
	}
	// Tail latency is judged per route: the mix itself is multimodal
	// (classify embeds, persona reads a cached snapshot), so the p50 of the
	// mix falls on the cheap routes and its p99 on the dear one.
	for kind, l := range byKind {
		if p50, p99 := l[len(l)/2], l[len(l)*99/100]; p99 > 2*p50 {
			t.Errorf("%s: p99 latency %s is more than 2× p50 %s", kind, p99, p50)
		}
	}
}

// soakRequest is the i-th request of the mix.
// distinct > 0 makes the classify texts repeat with that period (else every
// one is new, as real corrections are).
func soakRequest(i, distinct int) (method, path string, body []byte) {
	texts := []string{"stop using sed to edit files", "pnpm, not npm", "write shorter answers please", "never force push to main", "use ripgrep not grep"}
	rules := []string{"tool.no-sed-for-file-editing", "tool.pnpm-not-npm", "tool.use-ripgrep"}
	projects := []string{"api", "web", "cli"}
	switch i % 5 {
	case 0, 1:
		take := i
		if distinct > 0 {
			take = i % distinct
		}
		return http.MethodPost, "/v1/classify", fmt.Appendf(nil, `{"text":"%s, take %d","scope":{"project":"%s"}}`, texts[i%len(texts)], take, projects[i%3])
	case 2, 3:
		return http.MethodPost, "/v1/corrections", fmt.Appendf(nil, `{"text":"soak correction %d","rule_id":"%s","polarity":%d,"scope":{"project":"%s"}}`,
			i, rules[i%len(rules)], 1-2*(i%7/6), projects[i%3])
	}
	return http.MethodGet, "/v1/persona?project=" + projects[i%3], nil
}

// vmRSS reads the resident set size of pid, in kB, from /proc/PID/status.
func vmRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

func median(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// rssSample is one VmRSS reading, at a time since the load started.
type rssSample struct {
	at  time.Duration
	rss int64 // kB
}

func maxRSS(s []rssSample) int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.rss)
	}
	return m
}

// rssTrace renders every tenth sample as seconds:kB.
func rssTrace(s []rssSample) string {
	var b strings.Builder
	for i, x := range s {
		if i%10 == 0 {
			fmt.Fprintf(&b, "%d:%d ", int(x.at.Seconds()), x.rss)
		}
	}
	return b.String()
}
