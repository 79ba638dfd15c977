package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// NoteError records err when it reports a fault of the database.
func (d *Driver) NoteError(err error) { d.faults.Note(err) }

// LastFault returns the fault recorded last (see store.FaultState).
func (d *Driver) LastFault() error { return d.faults.Get() }

// Writable reports whether writes can commit: not when the store was
// opened read-only, nor while the last write met a fault, nor when the
// server cannot be reached or does not answer within ctx (both wrap
// store.ErrUnreachable), nor when it has since become read-only (a
// standby). A full disk or a read-only server that a write met is probed
// at most every probeEvery with a small write (sqldriver.ProbeWrite), whose
// commit clears it. Its error is EUNAVAILABLE.
func (d *Driver) Writable(ctx context.Context) error {
	if d.readOnly {
		return faultErr(store.FaultReadOnly, "write", fmt.Errorf("%s was opened read-only", d.location))
	}
	if err := d.faults.Probe(d.probeEvery, func() { _ = sqldriver.ProbeWrite(ctx, d.clock(), d.Write) }); err != nil {
		return err
	}
	var readOnly bool
	err := d.pool.QueryRow(ctx, `SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on'`).Scan(&readOnly)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			// No answer in the caller's time (a host that is down or cut off
			// drops packets rather than refusing them).
			return fmt.Errorf("%w: %w: %w", engine.Errorf(engine.EUNAVAILABLE, "the PostgreSQL server did not answer in time"), store.ErrUnreachable, err)
		}
		if e := dbErr("check the server", err); engine.ErrorCode(e) == engine.EUNAVAILABLE {
			return e
		}
		return engine.Errorf(engine.EUNAVAILABLE, "PostgreSQL database %s is not writable: %v", d.location, err)
	}
	if readOnly {
		return faultErr(store.FaultReadOnly, "write", fmt.Errorf("%s only accepts reads", d.location))
	}
	return nil
}

// checkedTables are read in full by QuickCheck.
var checkedTables = []string{"persona_rules", "persona_events", "counterexample_tags", "exception_rejections",
	"rule_texts", "persona_embeddings", "persona_config", "pending_confirmations", "idempotency_keys", "registry_source",
	"store_counters", "rules_removed", "schema_migrations", "retracted_events", "capture_log"}

// QuickCheck reads every row of the store's tables within limit, so that
// PostgreSQL verifies their pages (their checksums, when the cluster has
// data checksums); it returns finished false, and no error, when the time
// ran out first. PostgreSQL checks its own structures: this finds damage
// only where the server reports it (data_corrupted, index_corrupted), as
// the damaged-data fault (EUNAVAILABLE). Other errors are internal or
// EUNAVAILABLE when the server cannot be reached.
func (d *Driver) QuickCheck(ctx context.Context, limit time.Duration) (finished bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for _, t := range checkedTables {
		var n int64
		if err := d.pool.QueryRow(ctx, "SELECT count(*) FROM "+t).Scan(&n); err != nil {
			if ctx.Err() != nil {
				return false, nil
			}
			if kindOf(err) == store.FaultCorrupt {
				e := store.NewFault(store.FaultCorrupt, fmt.Sprintf("PostgreSQL reports damaged data in table %s of %s: restore it from a backup", t, d.location), err)
				d.faults.Note(e)
				return true, e
			}
			return true, dbErr("check table "+t, err)
		}
	}
	return true, nil
}
