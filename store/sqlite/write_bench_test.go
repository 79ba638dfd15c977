package sqlite

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory/memorytest"
)

// BenchmarkRecordDurability measures corrections per second with 1 and 64
// concurrent writers under three ways of committing, side by side:
//
//   - normal: synchronous=NORMAL, one commit per write (not durable: in WAL
//     mode a power cut can drop the last commits);
//   - full: synchronous=FULL, one commit (one fsync) per write;
//   - full-group: synchronous=FULL with group commit (the default): writes
//     queued meanwhile share one commit.
//
// The database lives in the test's temporary directory: run it on a real
// disk (TMPDIR), not a tmpfs, whose fsync costs nothing.
func BenchmarkRecordDurability(b *testing.B) {
	ctx := context.Background()
	modes := []struct {
		name string
		cfg  writeConfig
	}{
		{"normal", writeConfig{synchronous: "NORMAL", maxGroup: 1}},
		{"full", writeConfig{synchronous: "FULL", maxGroup: 1}},
		{"full-group", defaultWrite},
	}
	for _, writers := range []int{1, 64} {
		for _, m := range modes {
			b.Run(fmt.Sprintf("writers=%d/%s", writers, m.name), func(b *testing.B) {
				db, d := mustOpenWith(b, config{ckpt: defaultCkpt, write: m.cfg})
				buildFixture(b, d, 100, 10)
				commits0 := d.writer.Commits()
				var next atomic.Int64
				var wg sync.WaitGroup
				b.ResetTimer()
				start := time.Now()
				for w := range writers {
					wg.Go(func() {
						for {
							i := next.Add(1)
							if i > int64(b.N) {
								return
							}
							if _, _, err := memorytest.Record(ctx, db, engine.Correction{RuleID: fmt.Sprintf("bench.rule-%05d", (int(i)+w)%100),
								Polarity: engine.Reinforce, UserText: "use the replace tool", At: t0}); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				elapsed := time.Since(start)
				b.StopTimer()
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "corrections/s")
				b.ReportMetric(float64(b.N)/float64(max(1, d.writer.Commits()-commits0)), "writes/commit")
			})
		}
	}
}
