package memory

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/redact"
	"github.com/lexsona/lexsona/store"
)

const benchRule = "user.bench-rule"

// benchEvent is the i-th correction (from 1) of the benchmark's rule, a
// second after the one before, every tenth a counterexample, with about
// 200 bytes of words, agent output, frame and candidates; it applies
// itself to r and records r's α and β.
func benchEvent(i int, r *engine.Rule) engine.Event {
	ev := engine.Event{EventID: int64(i + 1), RuleID: benchRule, EventType: engine.EventReinforcement, Polarity: engine.Reinforce,
		UserText:    fmt.Sprintf("keep this function short, it is the %dth time I say it", i),
		AgentOutput: "func handle() { /* 300 lines */ }", FrameID: "session-0042", Scope: engine.Scope{Project: "api"},
		Decision: "auto_match", Model: "lexical-v1", Candidates: []engine.Candidate{{RuleID: benchRule, Score: 0.91}},
		At: t0.Add(time.Duration(i) * time.Second)}
	if i%10 == 0 {
		ev.EventType, ev.Polarity = engine.EventCounterexample, engine.Counter
	}
	r.ApplyEvidence(ev.Polarity, ev.At)
	ev.Alpha, ev.Beta = r.Alpha, r.Beta
	return ev
}

// writeBenchExport writes an export of one user rule whose history has n
// events (its creation, then benchEvent's corrections) in dir and returns
// its path: one rule, the worst case for an import that held a rule's
// events.
func writeBenchExport(tb testing.TB, dir string, n int) string {
	tb.Helper()
	newRule := func() engine.Rule {
		return engine.NewRule(benchRule, "code_style", engine.SeverityShould, "Keep functions short", engine.Scope{}, engine.DefaultConfig(), t0)
	}
	rule := newRule()
	for i := 1; i < n; i++ {
		benchEvent(i, &rule)
	}
	path := filepath.Join(dir, fmt.Sprintf("export-%d.jsonl", n))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	put := func(l exportLine) {
		if err := enc.Encode(l); err != nil {
			tb.Fatal(err)
		}
	}
	put(exportLine{Kind: "header", Format: ExportFormat, Version: ExportVersion, ExportedAt: t0, Source: "sqlite:bench.db"})
	put(exportLine{Kind: "rule", Rule: &rule})
	put(exportLine{Kind: "text", Text: &store.RuleText{RuleID: benchRule, Kind: store.KindTemplate, Text: rule.Text}})
	r := newRule()
	put(exportLine{Kind: "event", Event: &engine.Event{EventID: 1, RuleID: benchRule, EventType: engine.EventCreation,
		Detail: "created (source: user)", Alpha: r.Alpha, Beta: r.Beta, At: t0}})
	for i := 1; i < n; i++ {
		ev := benchEvent(i, &r)
		put(exportLine{Kind: "event", Event: &ev})
	}
	put(exportLine{Kind: "end", Counts: &ExportCounts{Rules: 1, Texts: 1, Events: n}})
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// heapPeak samples the heap every millisecond until stop and returns
// the most it held beyond what it held at the start: objects (live or
// not yet collected: what the process holds) and live (marked by the
// last collection).
func heapPeak() (stop func() (objects, live uint64)) {
	runtime.GC()
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(samples)
	base0, base1 := samples[0].Value.Uint64(), samples[1].Value.Uint64()
	var peak0, peak1 uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		s := []metrics.Sample{{Name: samples[0].Name}, {Name: samples[1].Name}}
		for {
			metrics.Read(s)
			peak0, peak1 = max(peak0, s[0].Value.Uint64()), max(peak1, s[1].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() (uint64, uint64) {
		close(done)
		wg.Wait()
		return peak0 - min(peak0, base0), peak1 - min(peak1, base1)
	}
}

// benchStore opens an empty store of kind ("sqlite", "postgres": a
// schema of its own in $LEXSONA_TEST_PG, skipped without it).
func benchStore(b *testing.B, kind string) *store.DB {
	if kind == "sqlite" {
		return MustOpenStore(b)
	}
	db, err := store.OpenWith(context.Background(), testenv.PGSchemaURL(b), store.Options{Clock: time.Now})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkImport imports a generated export of one rule with n events
// (writeBenchExport: about 200 bytes each) into a new store (SQLite;
// PostgreSQL when $LEXSONA_TEST_PG names one) as `lexsona import` does:
// CheckExport (a scan for retractions, then every record checked and the
// history replayed), then ImportChecked (read, checked, replayed and
// redacted again in a goroutine while the store writes in batches). It
// reports the time of one import (ns/op), events/s, the CPU time it took
// (cpu-s/op, all threads: what other processes competing for the machine
// do not inflate), and the peak heap during it above the heap before it:
// peak-heap-MB (heap objects, live or garbage not yet collected) and
// peak-live-MB (the live heap at the collections); both stay flat from
// 1e5 to 1e6 events (the secret scanner, built at its first use, is
// built before). Run with -benchtime=1x: each iteration writes a new
// store.
func BenchmarkImport(b *testing.B) {
	dir, files := b.TempDir(), map[int]string{}
	for _, kind := range []string{"sqlite", "postgres"} {
		for _, n := range []int{1e5, 1e6} {
			b.Run(fmt.Sprintf("%s/events=%d", kind, n), func(b *testing.B) {
				if files[n] == "" {
					files[n] = writeBenchExport(b, dir, n)
				}
				benchImport(b, kind, files[n], n)
			})
		}
	}
}

// benchImport imports file, an export of n events, into a new store of
// kind at each iteration and reports what BenchmarkImport says.
func benchImport(b *testing.B, kind, file string, n int) {
	ctx := context.Background()
	emb := MustLexical(b, nil)
	warm := "warm up the secret scanner (built at its first use) " + fakeGitHubToken
	redact.Strings(&warm)
	var objects, live uint64
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		s := New(benchStore(b, kind), emb, Options{})
		f, err := os.Open(file)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cpu0 := importCPU()
		stop := heapPeak()
		c, err := CheckExport(f, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		res, err := s.ImportChecked(ctx, c, ImportOptions{})
		o, l := stop()
		cpu += importCPU() - cpu0
		objects, live = max(objects, o), max(live, l)
		c.Close()
		f.Close()
		if err != nil || res.Added.Events != n {
			b.Fatalf("imported %+v, %v; want %d events", res.Added, err, n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(objects)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(live)/(1<<20), "peak-live-MB")
}
