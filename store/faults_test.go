package store

import (
	"errors"
	"syscall"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

// TestFaultStateClears: a full disk or a read-only file is forgotten at the
// next commit; damage is not, and is not replaced by a lesser fault.
func TestFaultStateClears(t *testing.T) {
	full := NewFault(FaultDiskFull, "", syscall.ENOSPC)
	corrupt := NewFault(FaultCorrupt, "", errors.New("malformed"))
	var s FaultState
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
