package memory

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// TestUnwritable: what a front end shows of a store that cannot take
// writes names a fault of the file, says an unreachable server is one
// without naming it, and says nothing more of any other error.
func TestUnwritable(t *testing.T) {
	secret := "dial tcp 10.0.0.7:5432: connection refused"
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"disk full", store.NewFault(store.FaultDiskFull, "", syscall.ENOSPC), "the store is not writable: " + store.FaultMessage(store.FaultDiskFull)},
		{"read-only", store.NewFault(store.FaultReadOnly, "", syscall.EROFS), "the store is not writable: " + store.FaultMessage(store.FaultReadOnly)},
		{"unreachable", fmt.Errorf("%w: %w: %s", engine.Errorf(engine.EUNAVAILABLE, "%s", secret), store.ErrUnreachable, secret),
			"the store's database server cannot be reached or does not answer"},
		{"other", engine.Errorf(engine.EUNAVAILABLE, "the write lock of %s is held", secret), "the store is not writable"},
		{"internal", errors.New(secret), "the store is not writable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Unwritable(c.err)
			if engine.ErrorCode(got) != engine.EUNAVAILABLE || engine.ErrorMessage(got) != c.want {
				t.Errorf("Unwritable = %v, want unavailable: %s", got, c.want)
			}
		})
	}
}

// TestWritableAndClose: a fresh store is writable; once closed it is not.
func TestWritableAndClose(t *testing.T) {
	s, _ := MustDefaultService(t, Options{})
	if err := s.Writable(t.Context()); err != nil {
		t.Fatalf("Writable on a fresh store: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Writable(t.Context()); err == nil {
		t.Errorf("Writable after Close: nil")
	}
}
