package sqldriver

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/store"
)

// The store's jobs record when they last ran in store_jobs: the pruning of
// idempotency keys shared by the instances of a PostgreSQL database, and
// the write probe of readiness checks.

// JobRanAt returns when the job name last ran; found is false when it never
// did.
func (x Queries[C]) JobRanAt(name string) (at time.Time, found bool, err error) {
	var s string
	if found, err = x.row("read when "+name+" ran", x.S.jobRanAt, []any{name}, &s); !found || err != nil {
		return time.Time{}, false, err
	}
	at, err = ParseTime(s)
	return at, err == nil, err
}

// RecordJob records that the job name ran at at.
func (x Queries[C]) RecordJob(name string, at time.Time) error {
	return x.later("record when "+name+" ran", x.S.jobRan, name, FormatTime(at))
}

// WriteProbe is the job of a readiness probe that tries whether a write
// commits (store.FaultState.Probe).
const WriteProbe = "write_probe"

// ProbeWrite records a run of WriteProbe at at through write (a driver's
// Write, whose write transactions are Queries): one small row, which
// commits when the database takes writes again. Its error is write's.
func ProbeWrite(ctx context.Context, at time.Time, write func(context.Context, func(store.DriverTx) error) error) error {
	return write(ctx, func(tx store.DriverTx) error {
		return tx.(interface{ RecordJob(string, time.Time) error }).RecordJob(WriteProbe, at)
	})
}
