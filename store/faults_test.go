package store

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// TestFaultStateClears: a full disk or a read-only file is forgotten at the
// next commit; damage is not, and is not replaced by a lesser fault.
func TestFaultStateClears(t *testing.T) {
	full := NewFault(FaultDiskFull, "", syscall.ENOSPC)
	corrupt := NewFault(FaultCorrupt, "", errors.New("malformed"))
	s := FaultState{Clock: stoppedClock}
	s.Note(errors.New("not a fault"))
	if s.Get() != nil {
		t.Fatal("an ordinary error was recorded as a fault")
	}
	s.Note(full)
	if Fault(s.Get()) != FaultDiskFull {
		t.Fatalf("after a full disk: %v", s.Get())
	}
	s.Note(nil)
	if s.Get() != nil {
		t.Fatalf("a commit did not clear the full disk: %v", s.Get())
	}
	s.Note(corrupt)
	s.Note(full)
	s.Note(nil)
	if Fault(s.Get()) != FaultCorrupt {
		t.Fatalf("damage was forgotten: %v", s.Get())
	}
}

// TestNewFault: a fault is EUNAVAILABLE with its kind's message (or the one
// given), carries its kind and wraps its cause.
func TestNewFault(t *testing.T) {
	for _, tc := range []struct {
		kind FaultKind
		msg  string
		want string
	}{
		{FaultDiskFull, "", faultMessages[FaultDiskFull]},
		{FaultReadOnly, "", faultMessages[FaultReadOnly]},
		{FaultCorrupt, "file x is damaged", "file x is damaged"},
	} {
		err := NewFault(tc.kind, tc.msg, syscall.EIO)
		if Fault(err) != tc.kind || engine.ErrorCode(err) != engine.EUNAVAILABLE || engine.ErrorMessage(err) != tc.want || !errors.Is(err, syscall.EIO) {
			t.Errorf("NewFault(%d, %q) = %v: want EUNAVAILABLE %q wrapping EIO", tc.kind, tc.msg, err, tc.want)
		}
	}
	if NewFault(FaultNone, "x", syscall.EIO) != nil || Fault(errors.New("x")) != FaultNone || Fault(nil) != FaultNone {
		t.Error("FaultNone: want no error and no kind")
	}
}

// TestFaultStateProbe: only a full disk or a read-only database is probed,
// not sooner than every after a write met it or the last probe, one probe at
// a time, and a probe that commits clears the fault.
func TestFaultStateProbe(t *testing.T) {
	full := NewFault(FaultDiskFull, "", syscall.ENOSPC)
	readOnly := NewFault(FaultReadOnly, "", syscall.EROFS)
	corrupt := NewFault(FaultCorrupt, "", errors.New("malformed"))
	for _, tc := range []struct {
		name   string
		noted  error         // the fault recorded first (nil: none)
		every  time.Duration // Probe's interval
		commit bool          // the probe commits (else it meets noted again)
		probed bool          // want the probe run
		want   FaultKind     // the fault Probe returns
	}{
		{name: "no fault", every: 0, probed: false, want: FaultNone},
		{name: "damage is not probed", noted: corrupt, every: 0, probed: false, want: FaultCorrupt},
		{name: "full disk, just met", noted: full, every: time.Hour, probed: false, want: FaultDiskFull},
		{name: "full disk, space freed", noted: full, every: 0, commit: true, probed: true, want: FaultNone},
		{name: "full disk, still full", noted: full, every: 0, probed: true, want: FaultDiskFull},
		{name: "read-only, writable again", noted: readOnly, every: 0, commit: true, probed: true, want: FaultNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := FaultState{Clock: stoppedClock}
			s.Note(tc.noted)
			probed := false
			err := s.Probe(tc.every, func() {
				probed = true
				if tc.commit {
					s.Note(nil)
				} else {
					s.Note(tc.noted)
				}
			})
			if probed != tc.probed || Fault(err) != tc.want {
				t.Fatalf("probed %v, fault %v; want probed %v, fault kind %d", probed, err, tc.probed, tc.want)
			}
		})
	}

	s := FaultState{Clock: stoppedClock}
	s.Note(full)
	probes := 0
	s.Probe(0, func() {
		probes++
		s.Probe(0, func() { probes++ }) // a call during a probe does not probe
		s.Note(full)
	})
	s.Probe(time.Hour, func() { probes++ }) // the probe just ran
	if probes != 1 {
		t.Fatalf("%d probes, want 1", probes)
	}
}

// stoppedClock is a clock that does not move.
func stoppedClock() time.Time { return time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC) }
