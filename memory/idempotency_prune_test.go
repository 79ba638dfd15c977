package memory

import (
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// TestPruneIdempotencyKeys: keys stored before the cut-off are deleted (a
// retry is then recorded anew), later ones kept (a retry replays).
func TestPruneIdempotencyKeys(t *testing.T) {
	s, _ := MustDefaultService(t, bands(0.6, 0.35))
	ctx := t.Context()
	c := engine.Correction{UserText: "stop editing files with sed", IdempotencyKey: "k-prune"}
	MustRecord(t, s, c)
	// The store stamps keys with the wall clock.
	for _, tc := range []struct {
		name     string
		before   time.Time
		deleted  int64
		replayed bool
	}{
		{"kept", time.Now().Add(-time.Hour), 0, true},
		{"deleted", time.Now().Add(time.Hour), 1, false},
	} {
		n, err := s.PruneIdempotencyKeys(ctx, tc.before)
		if err != nil || n != tc.deleted {
			t.Fatalf("%s: PruneIdempotencyKeys = %d, %v; want %d", tc.name, n, err, tc.deleted)
		}
		c.At = t0
		_, replayed, err := s.Record(ctx, c)
		if err != nil || replayed != tc.replayed {
			t.Errorf("%s: a retry replayed %v (%v), want %v", tc.name, replayed, err, tc.replayed)
		}
	}
}
