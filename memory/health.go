package memory

import (
	"context"
	"errors"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Writable reports nil when the service's store can take writes, for
// readiness probes: not read-only, no full disk or damage met, the write
// lock free, the database server reachable (a full disk or a read-only
// database is tried again every few seconds with a small write, so it turns
// writable without waiting for a request). Errors: EUNAVAILABLE, whose
// message may name the file and the driver's error: for the log; Unwritable
// turns it into what may be shown to anyone.
func (s *Service) Writable(ctx context.Context) error { return s.db.Writable(ctx) }

// Unwritable is what a front end shows of a Writable error: EUNAVAILABLE
// naming the cause for a fault of the file (full disk, read-only, damaged),
// whose message names only the cause; saying the database server cannot be
// reached or does not answer, without its address; otherwise saying only
// that the store is not writable.
func Unwritable(err error) error {
	switch {
	case store.Fault(err) != store.FaultNone:
		return engine.Errorf(engine.EUNAVAILABLE, "the store is not writable: %s", engine.ErrorMessage(err))
	case errors.Is(err, store.ErrUnreachable):
		return engine.Errorf(engine.EUNAVAILABLE, "the store's database server cannot be reached or does not answer")
	}
	return engine.Errorf(engine.EUNAVAILABLE, "the store is not writable")
}

// NoteError records err on the store when it reports a fault of the
// database (a damaged page met by a read, say), so that Writable reports it
// from then on; front ends call it with the errors of the requests they
// answer. Other errors are ignored.
func (s *Service) NoteError(err error) { s.db.NoteError(err) }

// Close closes the service's store (a SQLite store checkpoints its WAL).
// The embedders are the caller's. Errors: the store's.
func (s *Service) Close() error { return s.db.Close() }
