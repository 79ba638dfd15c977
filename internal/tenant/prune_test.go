package tenant

import (
	"testing"
	"time"
)

func TestPruneInterval(t *testing.T) {
	for _, c := range []struct{ ttl, want time.Duration }{
		{DefaultIdempotencyTTL, time.Hour},
		{7 * 24 * time.Hour, time.Hour},
		{2 * time.Hour, 5 * time.Minute},
		{time.Minute, time.Minute},
	} {
		if got := pruneInterval(c.ttl); got != c.want {
			t.Errorf("pruneInterval(%s) = %s, want %s", c.ttl, got, c.want)
		}
	}
}
