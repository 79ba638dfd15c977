package e2e

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	// floodClients send floodRounds /v1/embeddings requests of floodTexts
	// texts each, all at once, to a server that embeds at most two such
	// requests at a time (server.DefaultMaxTextsInFlight; serve has no flag
	// for it).
	floodClients = 16
	floodRounds  = 4
	floodTexts   = 2048
	// floodRSSLimit is the most resident memory the server may reach under
	// the flood. One request of 2,048 texts alone takes the lexical server
	// from about 65 MiB to about 195 MiB (4,096-float vectors and their JSON)
	// and two at once to about 265 MiB; the bound admits two, so the peak
	// stays near 450 MiB, where sixteen admitted at once would pass 1 GiB.
	floodRSSLimit = 768 << 20
	// floodRule is the rule the corrections sent during the flood reinforce.
	floodRule = "tool.pnpm-not-npm"
)

// floodCounts tallies the answers of one kind of request under the flood.
type floodCounts struct {
	ok, tooMany, noRetryAfter, fiveXX, other, transport atomic.Int64
	mu                                                  sync.Mutex
	first                                               []string // the first unexpected answers
}

// add counts one answer; okStatus is the status of success.
func (f *floodCounts) add(what string, r Response, err error, okStatus int) {
	switch {
	case err != nil:
		f.transport.Add(1)
		f.note(fmt.Sprintf("%s: %v", what, err))
	case r.Status == okStatus:
		f.ok.Add(1)
	case r.Status == http.StatusTooManyRequests:
		f.tooMany.Add(1)
		if r.Header.Get("Retry-After") == "" {
			f.noRetryAfter.Add(1)
			f.note(what + ": 429 without Retry-After")
		}
	case r.Status >= 500:
		f.fiveXX.Add(1)
		f.note(fmt.Sprintf("%s: %d %s", what, r.Status, clipBody(r.Body)))
	default:
		f.other.Add(1)
		f.note(fmt.Sprintf("%s: %d %s", what, r.Status, clipBody(r.Body)))
	}
}

func (f *floodCounts) note(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.first) < 5 {
		f.first = append(f.first, s)
	}
}

func (f *floodCounts) String() string {
	return fmt.Sprintf("%d ok, %d × 429 (%d without Retry-After), %d × 5xx, %d other, %d transport errors",
		f.ok.Load(), f.tooMany.Load(), f.noRetryAfter.Load(), f.fiveXX.Load(), f.other.Load(), f.transport.Load())
}

// mustClean fails the test unless every answer was okStatus or a 429 with
// Retry-After.
func (f *floodCounts) mustClean(t *testing.T, what string) {
	t.Helper()
	if f.noRetryAfter.Load()+f.fiveXX.Load()+f.other.Load()+f.transport.Load() > 0 {
		t.Errorf("%s: %s; first: %s", what, f, strings.Join(f.first, "; "))
	}
}

// TestFaultEmbeddingFlood: 16 clients on loopback send /v1/embeddings
// requests of 2,048 texts each, all at once, while one more client sends
// classify requests and corrections. The server admits the texts against
// one bound: some embeddings requests answer 429 with Retry-After, none
// answers 5xx, its resident memory stays under 768 MiB, classify and
// corrections answer 200/201 or 429 (never 5xx) during the flood and
// 200/201 after it, and the rule's alpha is its prior plus exactly the
// acknowledged corrections.
func TestFaultEmbeddingFlood(t *testing.T) {
	bin := MustBuildBinary(t)
	dir := t.TempDir()
	p := mustStartFaultServe(t, bin, filepath.Join(dir, "lexsona.db"), dir)
	if _, err := p.WaitReady(readyLimit); err != nil {
		t.Fatalf("%v\n%s", err, p.Log())
	}
	c := NewClient(p.Base, floodClients+2)
	prior := c.MustRule(t, floodRule).Alpha
	body := floodBody(floodTexts)

	var rssPeak atomic.Int64
	stopRSS := make(chan struct{})
	rssDone := make(chan struct{})
	go func() {
		defer close(rssDone)
		for tick := time.NewTicker(10 * time.Millisecond); ; {
			if kb, err := vmRSSKiB(p.Cmd.Process.Pid); err == nil && kb*1024 > rssPeak.Load() {
				rssPeak.Store(kb * 1024)
			}
			select {
			case <-tick.C:
			case <-stopRSS:
				tick.Stop()
				return
			}
		}
	}()

	var embeds, classifies, corrections floodCounts
	var acked atomic.Int64
	record := func(key, text string) {
		r, _, err := recordTo(c, floodRule, key, text)
		corrections.add("a correction", r, err, http.StatusCreated)
		if err == nil && r.Status == http.StatusCreated {
			acked.Add(1)
		}
	}
	classify := func() Response {
		r, err := c.Do(http.MethodPost, "/v1/classify", "application/json", []byte(`{"text":"use pnpm here, not npm"}`), nil)
		classifies.add("a classify", r, err, http.StatusOK)
		return r
	}

	start := time.Now()
	flooding := make(chan struct{})
	var wg sync.WaitGroup
	for cl := range floodClients {
		wg.Go(func() {
			for i := range floodRounds {
				r, err := c.Do(http.MethodPost, "/v1/embeddings", "application/json", body, nil)
				embeds.add(fmt.Sprintf("embeddings client %d round %d", cl, i), r, err, http.StatusOK)
			}
		})
	}
	var side sync.WaitGroup
	side.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-flooding:
				return
			default:
			}
			classify()
			record(fmt.Sprintf("flood-during-%d", i), fmt.Sprintf("during the flood %d: use pnpm, not npm", i))
		}
	})
	wg.Wait()
	close(flooding)
	side.Wait()
	elapsed := time.Since(start)
	close(stopRSS)
	<-rssDone

	during := acked.Load()
	classifyDuring := classifies.ok.Load() + classifies.tooMany.Load()
	after := classify()
	record("flood-after", "after the flood: use pnpm, not npm")
	t.Logf("%d embeddings requests of %d texts from %d clients in %s: %s", floodClients*floodRounds, floodTexts, floodClients,
		elapsed.Round(time.Millisecond), &embeds)
	t.Logf("classify: %s; corrections: %s (%d acknowledged during the flood)", &classifies, &corrections, during)
	t.Logf("server resident memory peak %.1f MiB (bound %d MiB)", float64(rssPeak.Load())/(1<<20), floodRSSLimit>>20)

	embeds.mustClean(t, "embeddings under the flood")
	classifies.mustClean(t, "classify during and after the flood")
	corrections.mustClean(t, "corrections during and after the flood")
	if embeds.tooMany.Load() == 0 {
		t.Errorf("no embeddings request was refused with 429: the flood was not bounded (%s)", &embeds)
	}
	if embeds.ok.Load() == 0 {
		t.Errorf("no embeddings request was admitted (%s)", &embeds)
	}
	if classifyDuring == 0 {
		t.Errorf("no classify was answered during the flood")
	}
	if after.Status != http.StatusOK {
		t.Errorf("the classify after the flood: %d %s, want 200", after.Status, clipBody(after.Body))
	}
	if acked.Load() != during+1 {
		t.Errorf("the correction after the flood was not acknowledged: %s", &corrections)
	}
	if peak := rssPeak.Load(); peak == 0 || peak > floodRSSLimit {
		t.Errorf("server resident memory peaked at %.1f MiB, want above 0 and at most %d MiB", float64(peak)/(1<<20), floodRSSLimit>>20)
	}
	if got, want := c.MustRule(t, floodRule).Alpha, prior+float64(acked.Load()); got != want {
		t.Errorf("%s: alpha %g, want %g (prior %g + %d acknowledged corrections)", floodRule, got, want, prior, acked.Load())
	}
	p.Stop(t)
}

// floodBody is a /v1/embeddings body of n distinct texts of about 300
// bytes each (under the default 1 MiB body limit at 2,048 texts).
func floodBody(n int) []byte {
	filler := strings.Repeat("prefer small focused functions and table tests ", 6)
	texts := make([]string, n)
	for i := range texts {
		texts[i] = strconv.Quote(fmt.Sprintf("%d %s", i, filler))
	}
	return []byte(`{"input":[` + strings.Join(texts, ",") + `]}`)
}

// vmRSSKiB reads the VmRSS line of /proc/PID/status, in KiB.
func vmRSSKiB(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
