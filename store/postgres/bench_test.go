package postgres_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/memory/memorytest"
	"github.com/lexsona/lexsona/store"
	_ "github.com/lexsona/lexsona/store/sqlite"
	"github.com/lexsona/lexsona/store/storetest"
)

// The same workloads on SQLite and on PostgreSQL, side by side:
//
//	go test -run '^$' -bench . -benchtime 3s ./store/postgres/
//
// with LEXSONA_TEST_PG set (bash scripts/pg.sh). "postgres-x3" spreads the
// clients over three instances (store.Open three times) on one database.

var t0 = storetest.T0

// benchStores opens n instances on one new database of kind ("sqlite" or
// "postgres"), closed when the benchmark ends.
func benchStores(b *testing.B, kind string, n int) []*store.DB {
	b.Helper()
	var dsn string
	switch kind {
	case "sqlite":
		dsn = filepath.Join(b.TempDir(), "bench.db")
	case "postgres":
		dsn = testenv.PGSchemaURL(b)
	}
	out := make([]*store.DB, n)
	for i := range out {
		db, err := store.OpenWith(context.Background(), dsn, store.Options{Clock: time.Now})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		out[i] = db
	}
	return out
}

var benchKinds = []struct {
	name      string
	kind      string
	instances int
}{{"sqlite", "sqlite", 1}, {"postgres", "postgres", 1}, {"postgres-x3", "postgres", 3}}

// BenchmarkRecord: 16 clients per CPU recording corrections on 10 rules
// (one write transaction each, as the service does). records/s is the
// throughput of all of them.
func BenchmarkRecord(b *testing.B) {
	for _, k := range benchKinds {
		b.Run(k.name, func(b *testing.B) {
			dbs := benchStores(b, k.kind, k.instances)
			for i := range 10 {
				storetest.MustCreate(b, dbs[0], fmt.Sprintf("tool.r%d", i), "tool_preference", engine.Scope{})
			}
			var next atomic.Int64
			b.SetParallelism(16)
			start := time.Now()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				db := dbs[int(next.Add(1))%len(dbs)]
				for i := 0; pb.Next(); i++ {
					c := engine.Correction{RuleID: fmt.Sprintf("tool.r%d", i%10), Polarity: engine.Reinforce, UserText: "again", At: t0}
					if _, _, err := memorytest.Record(context.Background(), db, c); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
		})
	}
}

// BenchmarkPersona: one persona snapshot of 200 active rules, the rule
// cache warm (every call still reads the change counters, one query).
func BenchmarkPersona(b *testing.B) {
	for _, k := range benchKinds[:2] {
		b.Run(k.name, func(b *testing.B) {
			db := benchStores(b, k.kind, 1)[0]
			ctx := context.Background()
			err := db.Write(ctx, t0, func(tx *store.Tx) error {
				for i := range 200 {
					r := engine.NewRule(fmt.Sprintf("tool.r%03d", i), "tool_preference", engine.SeverityShould, "Rule text", engine.Scope{}, engine.DefaultConfig(), t0)
					r.Alpha, r.Reinforcements = 30, 28
					if _, err := tx.InsertRule(r, engine.Event{}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			req := engine.SnapshotRequest{Now: t0, Max: 50}
			if s, err := memory.Snapshot(ctx, db, req); err != nil || len(s.Rules) == 0 {
				b.Fatalf("Snapshot: %d rules, %v", len(s.Rules), err)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := memory.Snapshot(ctx, db, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVisibility: how long after one instance's write returns another
// instance's persona shows it (the other's rule cache is warm and polled
// in a loop). visible-µs is the mean delay.
func BenchmarkVisibility(b *testing.B) {
	for _, k := range benchKinds[:2] {
		b.Run(k.name, func(b *testing.B) {
			dbs := benchStores(b, k.kind, 2)
			ctx := context.Background()
			r := engine.NewRule("tool.x", "tool_preference", engine.SeverityShould, "v0", engine.Scope{}, engine.DefaultConfig(), t0)
			r.Alpha, r.Reinforcements = 30, 28
			if _, err := storetest.CreateRule(dbs[0], r); err != nil {
				b.Fatal(err)
			}
			req := engine.SnapshotRequest{Now: t0}
			var total time.Duration
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				text := fmt.Sprintf("v%d", i+1)
				if _, err := memory.UpdateRule(ctx, dbs[0], "tool.x", memory.RuleUpdate{Text: &text}, t0); err != nil {
					b.Fatal(err)
				}
				written := time.Now()
				for {
					s, err := memory.Snapshot(ctx, dbs[1], req)
					if err != nil {
						b.Fatal(err)
					}
					if len(s.Rules) == 1 && s.Rules[0].Text == text {
						break
					}
				}
				total += time.Since(written)
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N), "visible-µs")
		})
	}
}

// BenchmarkVisibilityClassifier: how long after one instance changes a
// rule's text another instance's classifier notices (it trusts the
// embeddings version it read for up to 500 ms, as classifier.Classifier
// does, and polls it in a loop). visible-ms is the mean delay, max-ms the
// longest: the bound is that half second plus one query.
func BenchmarkVisibilityClassifier(b *testing.B) {
	const maxAge = 500 * time.Millisecond
	for _, k := range benchKinds[:2] {
		b.Run(k.name, func(b *testing.B) {
			dbs := benchStores(b, k.kind, 2)
			ctx := context.Background()
			storetest.MustCreate(b, dbs[0], "tool.x", "tool_preference", engine.Scope{})
			var total, worst time.Duration
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				v0, err := dbs[1].EmbeddingsVersionWithin(ctx, maxAge)
				if err != nil {
					b.Fatal(err)
				}
				text := fmt.Sprintf("v%d", i+1)
				if _, err := memory.UpdateRule(ctx, dbs[0], "tool.x", memory.RuleUpdate{Text: &text}, t0); err != nil {
					b.Fatal(err)
				}
				written := time.Now()
				for {
					v, err := dbs[1].EmbeddingsVersionWithin(ctx, maxAge)
					if err != nil {
						b.Fatal(err)
					}
					if v != v0 {
						break
					}
					time.Sleep(time.Millisecond)
				}
				d := time.Since(written)
				total, worst = total+d, max(worst, d)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "visible-ms")
			b.ReportMetric(float64(worst.Milliseconds()), "max-ms")
		})
	}
}

// BenchmarkSyncDefinitions: one registry sync of 10,000 definitions (a
// template and an example each) into an empty store (first), and again
// when nothing changed (unchanged).
func BenchmarkSyncDefinitions(b *testing.B) {
	ctx := context.Background()
	defs := make([]engine.Definition, 10000)
	for i := range defs {
		defs[i] = engine.Definition{Rule: engine.Rule{RuleID: fmt.Sprintf("reg.r%05d", i), Category: "tool_preference",
			Severity: engine.SeverityShould, Text: fmt.Sprintf("Rule number %d", i)}, Examples: []string{fmt.Sprintf("example %d", i)}}
	}
	for _, k := range benchKinds[:2] {
		for _, mode := range []string{"first", "unchanged"} {
			b.Run(k.name+"/"+mode, func(b *testing.B) {
				var db *store.DB
				if mode == "unchanged" {
					db = benchStores(b, k.kind, 1)[0]
					if _, err := memory.ApplyRegistry(ctx, db, memory.RegistrySync{Definitions: defs, At: t0}); err != nil {
						b.Fatal(err)
					}
				}
				for b.Loop() {
					if mode == "first" {
						b.StopTimer()
						db = benchStores(b, k.kind, 1)[0]
						b.StartTimer()
					}
					res, err := memory.ApplyRegistry(ctx, db, memory.RegistrySync{Definitions: defs, At: t0})
					if err != nil {
						b.Fatal(err)
					}
					if want := len(defs) * map[string]int{"first": 1}[mode]; len(res.Added) != want || len(res.Updated)+len(res.Archived) > 0 {
						b.Fatalf("%s sync: %d added, %d updated, %d archived", mode, len(res.Added), len(res.Updated), len(res.Archived))
					}
				}
			})
		}
	}
}
