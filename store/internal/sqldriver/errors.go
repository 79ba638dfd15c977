package sqldriver

import (
	"context"
	"errors"
	"fmt"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Errors is how a driver's errors become what the store's callers see.
type Errors struct {
	// Kind classifies an error as a fault of the database (FaultNone: it
	// is not one); an error already carrying a fault keeps its kind.
	Kind func(error) store.FaultKind
	// Messages are the faults' messages shown to users; a kind without
	// one gets store's (which speaks of a database file).
	Messages map[store.FaultKind]string
	// Transient returns the EUNAVAILABLE error of an error that may pass
	// on retry (a lock held too long, a server out of reach), nil for any
	// other; nil when the database has none.
	Transient func(error) error
}

// Map turns the error a database operation op met into what callers see:
// nil stays nil; an *engine.Error passes through; a context error is
// wrapped (errors.Is finds it); a fault of the database is its EUNAVAILABLE
// error (Fault); a transient error is Transient's; anything else is
// internal, wrapped naming op.
func (e Errors) Map(op string, err error) error {
	if err == nil {
		return nil
	}
	var ee *engine.Error
	if errors.As(err, &ee) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("store: %s: %w", op, err)
	}
	if k := e.Kind(err); k != store.FaultNone {
		return e.Fault(k, op, err)
	}
	if e.Transient != nil {
		if t := e.Transient(err); t != nil {
			return t
		}
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// Fault returns the EUNAVAILABLE error of a fault of kind k met while
// doing op (err is logged, never shown), nil when k is FaultNone.
func (e Errors) Fault(k store.FaultKind, op string, err error) error {
	return store.NewFault(k, e.Messages[k], fmt.Errorf("store: %s: %w", op, err))
}
