package postgres

import "time"

// The idempotency keys are pruned by every instance's server on a timer (a
// 24th of the keys' lifetime, at least a minute and at most an hour); on a
// shared database one pass serves them all. Each pass records when it ran
// in store_jobs, under the store's write lock, and a pass that comes
// sooner than 90% of that interval after another instance's is skipped:
// the keys it would delete are at most one interval younger than those the
// last pass deleted, which the next pass deletes, as with one instance.

const pruneJob = "prune_idempotency_keys"

// pruneInterval is how often keys that live ttl are pruned.
func pruneInterval(ttl time.Duration) time.Duration {
	return min(max(ttl/24, time.Minute), time.Hour)
}

// PruneIdempotencyKeys deletes the keys stored before the given time and
// returns how many, unless a pass by any instance ran less than 90% of the
// pruning interval ago (then it deletes nothing and returns 0). The pass
// runs at now.
func (x queries) PruneIdempotencyKeys(before, now time.Time) (int64, error) {
	last, found, err := x.JobRanAt(pruneJob)
	if err != nil {
		return 0, err
	}
	if since := now.Sub(last); found && since >= 0 && since < pruneInterval(now.Sub(before))*9/10 {
		return 0, nil
	}
	n, err := x.Queries.PruneIdempotencyKeys(before, now)
	if err != nil {
		return 0, err
	}
	return n, x.RecordJob(pruneJob, now)
}
