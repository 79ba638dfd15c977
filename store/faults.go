package store

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// Faults of the database that no retry of the same request can cure: the
// disk is full, the database cannot be written, or its content is damaged.
// A driver reports each as an EUNAVAILABLE error whose message names the
// cause and that carries the kind (NewFault), so Fault finds it. The driver
// remembers the last fault a write met (FaultState) and Writable reports
// it, so readiness probes say the store cannot take writes: a full disk or a
// read-only file is forgotten at the next committed write (space was freed,
// the mount made writable again), which Writable itself tries every few
// seconds (FaultState.Probe) so that a store no request is sent to while it
// is not ready becomes ready again; damage is remembered until the process
// ends.

// ErrUnreachable is found (errors.Is) under the EUNAVAILABLE error of a
// database server that cannot be reached or went away: a driver wraps it so
// callers (a readiness probe) can say so without showing the driver's
// message, which may name the server.
var ErrUnreachable = errors.New("the database server cannot be reached")

// FaultKind says which fault of the database an error is.
type FaultKind int

// Kinds of fault. FaultNone is any other error (or none).
const (
	FaultNone FaultKind = iota
	FaultDiskFull
	FaultReadOnly
	FaultCorrupt
)

var faultMessages = map[FaultKind]string{
	FaultDiskFull: "the disk holding the database is full: free some space, then retry",
	FaultReadOnly: "the database is read-only (a file attribute, its permissions or a read-only mount): writes are refused",
	FaultCorrupt:  "the database file is damaged (SQLite reports corruption): restore it from a backup",
}

// FaultMessage is the message callers see for a fault of kind k ("" for
// FaultNone).
func FaultMessage(k FaultKind) string { return faultMessages[k] }

// faultError is the cause carried under the EUNAVAILABLE error of a fault.
type faultError struct {
	kind FaultKind
	err  error
}

func (e *faultError) Error() string { return e.err.Error() }
func (e *faultError) Unwrap() error { return e.err }

// NewFault returns the EUNAVAILABLE error of a fault of kind k: its message
// is msg (FaultMessage(k) when msg is ""), and it wraps cause (logged, never
// shown) with the kind, which Fault reports. It returns nil for FaultNone.
func NewFault(k FaultKind, msg string, cause error) error {
	if k == FaultNone {
		return nil
	}
	if msg == "" {
		msg = faultMessages[k]
	}
	return fmt.Errorf("%w: %w", engine.Errorf(engine.EUNAVAILABLE, "%s", msg), &faultError{kind: k, err: cause})
}

// Fault returns the kind of database fault err reports (FaultNone for any
// other error and for nil).
func Fault(err error) FaultKind {
	var fe *faultError
	if errors.As(err, &fe) {
		return fe.kind
	}
	return FaultNone
}

// FaultState is the fault a driver's writes last met. It is ready for use
// once Clock is set (the driver's store.Options.Clock); it is safe for
// concurrent use.
type FaultState struct {
	// Clock times the probes.
	Clock func() time.Time

	last atomic.Pointer[error]
	// tried is when a write last met the recorded fault or a probe last
	// ran (Unix nanoseconds); probing: a probe is running.
	tried   atomic.Int64
	probing atomic.Bool
}

// ProbeEvery is how often at most a driver's Writable tries whether a full
// disk or a read-only database can take writes again (FaultState.Probe).
const ProbeEvery = 5 * time.Second

// Note records err when it is a fault, and forgets a recorded full disk or
// read-only file when err is nil (a write committed). A recorded damaged
// database is never replaced or forgotten.
func (s *FaultState) Note(err error) {
	if err == nil {
		if p := s.last.Load(); p != nil && Fault(*p) != FaultCorrupt {
			s.last.CompareAndSwap(p, nil)
		}
		return
	}
	if Fault(err) == FaultNone {
		return
	}
	if p := s.last.Load(); p != nil && Fault(*p) == FaultCorrupt {
		return
	}
	s.tried.Store(s.Clock().UnixNano())
	s.last.Store(&err)
}

// Probe is for a driver's Writable: it returns the recorded fault (nil when
// there is none), after trying to clear a full disk or a read-only database
// when neither a write nor a probe met it within every: probe then runs a
// bounded test write, whose outcome the driver notes as any write's (its
// commit clears the fault). A call made while another's probe runs does not
// wait for it. Damage is never probed.
func (s *FaultState) Probe(every time.Duration, probe func()) error {
	err := s.Get()
	if k := Fault(err); k != FaultDiskFull && k != FaultReadOnly {
		return err
	}
	now := s.Clock().UnixNano()
	if now-s.tried.Load() < int64(every) || !s.probing.CompareAndSwap(false, true) {
		return err
	}
	defer s.probing.Store(false)
	s.tried.Store(now)
	probe()
	return s.Get()
}

// Get returns the recorded fault, or nil.
func (s *FaultState) Get() error {
	if p := s.last.Load(); p != nil {
		return *p
	}
	return nil
}
