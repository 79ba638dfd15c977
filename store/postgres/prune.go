package postgres

import (
	"time"

	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// The idempotency keys are pruned by every instance's server on a timer (a
// 24th of the keys' lifetime, at least a minute and at most an hour); on a
// shared database one pass serves them all. Each pass records when it ran
// in store_jobs, under the store's write lock, and a pass that comes
// sooner than 90% of that interval after another instance's is skipped:
// the keys it would delete are at most one interval younger than those the
// last pass deleted, which the next pass deletes, as with one instance.

const (
	pruneJob  = "prune_idempotency_keys"
	qJobRanAt = `SELECT ran_at FROM store_jobs WHERE name = $1`
	qJobRan   = `INSERT INTO store_jobs (name, ran_at) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET ran_at = excluded.ran_at`
)

// pruneInterval is how often keys that live ttl are pruned.
func pruneInterval(ttl time.Duration) time.Duration {
	return min(max(ttl/24, time.Minute), time.Hour)
}

// PruneIdempotencyKeys deletes the keys stored before the given time and
// returns how many, unless a pass by any instance ran less than 90% of the
// pruning interval ago (then it deletes nothing and returns 0).
func (x queries) PruneIdempotencyKeys(before time.Time) (int64, error) {
	r := x.C
	now := time.Now()
	var ranAt string
	found, err := r.row("read when keys were pruned", qJobRanAt, []any{pruneJob}, &ranAt)
	if err != nil {
		return 0, err
	}
	if found {
		last, err := sqldriver.ParseTime(ranAt)
		if err != nil {
			return 0, err
		}
		if since := now.Sub(last); since >= 0 && since < pruneInterval(now.Sub(before))*9/10 {
			return 0, nil
		}
	}
	n, err := x.Queries.PruneIdempotencyKeys(before)
	if err != nil {
		return 0, err
	}
	_, err = r.Exec("record when keys were pruned", qJobRan, pruneJob, sqldriver.FormatTime(now))
	return n, err
}
