package sqldriver

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

func TestErrorsMap(t *testing.T) {
	errFull, errBusy, errOther := errors.New("disk full"), errors.New("busy"), errors.New("syntax")
	m := Errors{
		Kind: func(err error) store.FaultKind {
			if errors.Is(err, errFull) {
				return store.FaultDiskFull
			}
			return store.Fault(err)
		},
		Messages: map[store.FaultKind]string{store.FaultDiskFull: "the test disk is full"},
		Transient: func(err error) error {
			if errors.Is(err, errBusy) {
				return engine.Errorf(engine.EUNAVAILABLE, "busy: try again")
			}
			return nil
		},
	}
	invalid := engine.Errorf(engine.EINVALID, "bad input")
	for _, tc := range []struct {
		name    string
		err     error
		code    string // engine code, "" for internal
		message string // engine message when code is set
		is      error  // errors.Is must find it
		fault   store.FaultKind
	}{
		{name: "engine error passes", err: invalid, code: engine.EINVALID, message: "bad input", is: invalid},
		{name: "context error wrapped", err: context.Canceled, is: context.Canceled},
		{name: "fault", err: fmt.Errorf("exec: %w", errFull), code: engine.EUNAVAILABLE, message: "the test disk is full", fault: store.FaultDiskFull},
		{name: "transient", err: errBusy, code: engine.EUNAVAILABLE, message: "busy: try again"},
		{name: "other is internal", err: errOther, is: errOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := m.Map("do it", tc.err)
			if c := engine.ErrorCode(got); c != tc.code && !(tc.code == "" && c == engine.EINTERNAL) {
				t.Errorf("code %q (%v), want %q", c, got, tc.code)
			}
			if tc.code != "" && engine.ErrorMessage(got) != tc.message {
				t.Errorf("message %q, want %q", engine.ErrorMessage(got), tc.message)
			}
			if tc.is != nil && !errors.Is(got, tc.is) {
				t.Errorf("%v does not wrap %v", got, tc.is)
			}
			if k := store.Fault(got); k != tc.fault {
				t.Errorf("fault %d, want %d", k, tc.fault)
			}
		})
	}
	if m.Map("x", nil) != nil {
		t.Error("Map(nil) is not nil")
	}
	// A fault keeps its kind and gets store's message when the driver has none.
	f := Errors{Kind: store.Fault}.Fault(store.FaultCorrupt, "read", errors.New("malformed"))
	if store.Fault(f) != store.FaultCorrupt || engine.ErrorMessage(f) == "" {
		t.Errorf("Fault = %v", f)
	}
}
