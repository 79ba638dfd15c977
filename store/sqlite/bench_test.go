package sqlite

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/memory/memorytest"
	"github.com/lexsona/lexsona/migrations"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// benchFixtureVersion names the layout of the cached benchmark database;
// change it whenever buildFixture changes.
const benchFixtureVersion = "v2"

var benchScope = engine.Scope{Environment: "work", Project: "api", AgentFamily: "claude", ContextTags: []string{"cli", "go"}}

// buildFixture fills db with nRules rules that all apply in benchScope (a
// mix of wildcard and specific scopes, severities, categories and topics),
// each with eventsPerRule events (a creation and a mix of reinforcements and
// counterexamples), inserted in one transaction.
func buildFixture(tb testing.TB, d *Driver, nRules, eventsPerRule int) {
	tb.Helper()
	sevs := []engine.Severity{engine.SeverityMust, engine.SeverityShould, engine.SeverityStyle}
	cats := []string{"tool_preference", "code_style", "security_policy", "communication_style", "general"}
	scopes := []engine.Scope{{}, {Environment: "work"}, {Environment: "work", Project: "api"},
		{Project: "api", AgentFamily: "claude"}, {Environment: "work", ContextTags: []string{"cli"}}, {ExcludeTags: []string{"php"}}}
	ctx := context.Background()
	err := d.Write(ctx, func(tx store.DriverTx) error {
		for i := 0; i < nRules; i++ {
			id := fmt.Sprintf("bench.rule-%05d", i)
			at := t0.Add(-time.Duration(i) * time.Hour)
			r := engine.Rule{RuleID: id, Category: cats[i%len(cats)], Severity: sevs[i%3], Text: "Benchmark rule " + id,
				Scope: scopes[i%len(scopes)], Alpha: 2, Beta: 5, FirstSeen: at, LastCorrection: at, Status: engine.StatusActiveEligible, Source: "user"}
			if i%4 == 0 {
				r.Topic = fmt.Sprintf("topic-%d", i%500)
			}
			if err := tx.InsertRule(store.RuleRow{Rule: r}, t0); err != nil {
				return err
			}
			if _, err := tx.InsertEvent(&engine.Event{RuleID: id, EventType: engine.EventCreation, Model: "bench", Alpha: r.Alpha, Beta: r.Beta, At: at}); err != nil {
				return err
			}
			for k := 1; k < eventsPerRule; k++ {
				ev := engine.Event{RuleID: id, EventType: engine.EventReinforcement, UserText: "please stop doing that", Polarity: engine.Reinforce}
				if (i+k)%(3+i%7) == 0 {
					ev.EventType, ev.Polarity = engine.EventCounterexample, engine.Counter
					r.Beta, r.CounterExamples = r.Beta+1, r.CounterExamples+1
				} else {
					r.Alpha, r.Reinforcements = r.Alpha+1, r.Reinforcements+1
				}
				r.LastCorrection = r.LastCorrection.Add(time.Minute)
				ev.Alpha, ev.Beta, ev.At = r.Alpha, r.Beta, r.LastCorrection
				if _, err := tx.InsertEvent(&ev); err != nil {
					return err
				}
			}
			if err := tx.UpdateEvidence(r, t0); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("build fixture: %v", err)
	}
}

// bigFixture returns the path of the 10,000-rule, 1,000,000-event database,
// built once and cached under os.TempDir, keyed by the fixture version and a
// hash of the migrations (delete it to rebuild). Building takes tens of seconds.
func bigFixture(b *testing.B) string {
	b.Helper()
	ms, err := sqldriver.LoadMigrations(migrations.SQLite)
	if err != nil {
		b.Fatal(err)
	}
	h := sha256.New()
	for _, m := range ms {
		h.Write([]byte(m.SQL))
	}
	path := filepath.Join(os.TempDir(), fmt.Sprintf("lexsona-bench-%s-%x.db", benchFixtureVersion, h.Sum(nil)[:6]))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp := filepath.Join(b.TempDir(), "fixture.db")
	start := time.Now()
	d, err := Open(context.Background(), tmp, store.Options{Clock: time.Now})
	if err != nil {
		b.Fatal(err)
	}
	buildFixture(b, d, 10000, 100)
	if err := d.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	b.Logf("built %s in %v", path, time.Since(start).Round(time.Millisecond))
	return path
}

func BenchmarkSnapshot(b *testing.B) {
	ctx := context.Background()
	req := engine.SnapshotRequest{Scope: benchScope, Now: t0}
	for _, size := range []struct {
		name string
		open func(b *testing.B) (*store.DB, *Driver)
	}{
		{"rules=100", func(b *testing.B) (*store.DB, *Driver) {
			db, d := mustOpen(b)
			buildFixture(b, d, 100, 100)
			return db, d
		}},
		{"rules=10000,events=1000000", func(b *testing.B) (*store.DB, *Driver) {
			db, d, err := openPath(ctx, bigFixture(b))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			return db, d
		}},
	} {
		b.Run(size.name, func(b *testing.B) {
			db, d := size.open(b)
			snap, err := memory.Snapshot(ctx, db, req)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("%d rules injected, %d truncated, %d conflict losers", len(snap.Rules), snap.Truncated, len(snap.Losers))
			// cached: nothing changed since the last snapshot. after-correction:
			// one correction was recorded since (the cache reads that one rule).
			// cold: a store with an empty cache over the same database (all
			// rules are read).
			for _, mode := range []string{"cached", "after-correction", "cold"} {
				b.Run(mode, func(b *testing.B) {
					b.ReportAllocs()
					i := 0
					var cpu time.Duration
					for b.Loop() {
						h := db
						switch mode {
						case "cold":
							h = store.New(d, store.Options{Clock: time.Now})
						case "after-correction":
							b.StopTimer()
							i++
							if _, _, err := memorytest.Record(ctx, db, engine.Correction{RuleID: fmt.Sprintf("bench.rule-%05d", i%100),
								Polarity: engine.Reinforce, UserText: "again", At: t0}); err != nil {
								b.Fatal(err)
							}
							b.StartTimer()
						}
						c0 := cpuNow()
						if _, err := memory.Snapshot(ctx, h, req); err != nil {
							b.Fatal(err)
						}
						cpu += cpuNow() - c0
					}
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
				})
			}
		})
	}
}

// BenchmarkRecord measures corrections per second on one rule of 100
// (serial) and from concurrent clients spread over the 100 rules (parallel).
func BenchmarkRecord(b *testing.B) {
	ctx := context.Background()
	for _, mode := range []string{"serial", "parallel"} {
		b.Run(mode, func(b *testing.B) {
			db, d := mustOpen(b)
			buildFixture(b, d, 100, 10)
			b.ReportAllocs()
			start, cpu0 := time.Now(), cpuNow()
			if mode == "serial" {
				i := 0
				for b.Loop() {
					i++
					if _, _, err := memorytest.Record(ctx, db, engine.Correction{RuleID: "bench.rule-00042", Polarity: engine.Reinforce,
						UserText: "use the replace tool", At: t0.Add(time.Duration(i) * time.Second)}); err != nil {
						b.Fatal(err)
					}
				}
			} else {
				b.ResetTimer() // RunParallel does not: the fixture is not measured
				b.RunParallel(func(pb *testing.PB) {
					i := 0
					for pb.Next() {
						i++
						if _, _, err := memorytest.Record(ctx, db, engine.Correction{RuleID: fmt.Sprintf("bench.rule-%05d", i%100),
							Polarity: engine.Reinforce, UserText: "use the replace tool", At: t0}); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "corrections/s")
			b.ReportMetric(float64((cpuNow()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkSyncDefinitions measures syncing 10,000 registry definitions
// (each with a template and an example): into an empty store (first), and
// again when nothing changed (unchanged: what every classifying command pays).
func BenchmarkSyncDefinitions(b *testing.B) {
	ctx := context.Background()
	defs := make([]engine.Definition, 10000)
	for i := range defs {
		defs[i] = engine.Definition{Rule: engine.Rule{RuleID: fmt.Sprintf("reg.r%05d", i), Category: "tool_preference",
			Severity: engine.SeverityShould, Text: fmt.Sprintf("Rule number %d", i)}, Examples: []string{fmt.Sprintf("example %d", i)}}
	}
	for _, mode := range []string{"first", "unchanged"} {
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			var cpu time.Duration
			db, _ := mustOpen(b)
			if mode == "unchanged" {
				if _, err := memory.ApplyRegistry(ctx, db, memory.RegistrySync{Definitions: defs, At: t0}); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if mode == "first" {
					b.StopTimer()
					db.Close()
					var err error
					if db, _, err = openPath(ctx, filepath.Join(b.TempDir(), "sync.db")); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				c0 := cpuNow()
				res, err := memory.ApplyRegistry(ctx, db, memory.RegistrySync{Definitions: defs, At: t0})
				if err != nil {
					b.Fatal(err)
				}
				cpu += cpuNow() - c0
				if mode == "unchanged" && len(res.Added)+len(res.Updated)+len(res.Archived) > 0 {
					b.Fatalf("unchanged sync changed %+v", res)
				}
			}
			if mode == "first" {
				db.Close()
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
