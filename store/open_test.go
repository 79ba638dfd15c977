package store

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// register registers kinds for one test.
func register(t *testing.T, ks ...Kind) {
	for _, k := range ks {
		Register(k)
	}
	t.Cleanup(func() {
		kindsMu.Lock()
		defer kindsMu.Unlock()
		for _, k := range ks {
			delete(kinds, k.Name)
		}
	})
}

func opener(context.Context, string, Options) (Driver, error) { return nil, nil }

var (
	fileKind = Kind{Name: "file", Describe: "a file path", Open: opener}
	netKind  = Kind{Name: "net", Schemes: []string{"net", "netdb"}, Describe: "a net:// URL", Open: opener}
)

func TestKindOf(t *testing.T) {
	register(t, fileKind, netKind)
	for dsn, want := range map[string]string{
		"/var/lib/lexsona/lexsona.db": "file",
		"lexsona.db":                  "file",
		`C:\lexsona\lexsona.db`:       "file",
		"net://user@host:5432/db":     "net",
		"NetDB://user@host/db?x=1":    "net",
		" net://h/db":                 "net",
		"./net/lexsona.db":            "file",
	} {
		if got := DriverName(dsn); got != want {
			t.Errorf("DriverName(%q) = %q, want %q", dsn, got, want)
		}
	}
}

// TestOpenNeedsARegisteredDriver: package store alone has no driver (this
// test binary registers only the toy mem:// one): Open says what it can
// open.
func TestOpenNeedsARegisteredDriver(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ dsn, code, msg string }{
		{" ", engine.EINVALID, "database path is empty"},
		{"postgres://user@localhost:5432/lexsona", engine.EINVALID, "the database postgres://… is not one this program stores in"},
		{t.TempDir() + "/x.db", engine.EUNAVAILABLE, "no store driver for file paths is built into this program"},
	} {
		db, err := OpenWith(ctx, tc.dsn, Options{Clock: time.Now})
		if db != nil || engine.ErrorCode(err) != tc.code || !strings.Contains(engine.ErrorMessage(err), tc.msg) {
			t.Errorf("OpenWith(%q, Options{Clock: time.Now}) = %v, %v: want %s saying %q", tc.dsn, db, err, tc.code, tc.msg)
		}
	}
}

func TestRegister(t *testing.T) {
	register(t, fileKind, netKind)
	if got := Drivers(); !slices.Contains(got, "file") || !slices.Contains(got, "net") || !slices.IsSorted(got) {
		t.Errorf("Drivers() = %v, want file and net among them, sorted", got)
	}
	for name, k := range map[string]Kind{
		"twice":        fileKind,
		"no open":      {Name: "x"},
		"no name":      {Open: opener},
		"second paths": {Name: "paths", Open: opener},
		"taken scheme": {Name: "other", Schemes: []string{"netdb"}, Open: opener},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%s) did not panic", name)
				}
			}()
			Register(k)
		}()
	}
}

// TestOpenRefusesUnknownURLScheme: a URL whose scheme no driver takes (a
// typo, another database) is refused before any driver runs, instead of
// becoming a file under a folder named after the scheme; the message says
// what can be opened and never shows the URL's password.
func TestOpenRefusesUnknownURLScheme(t *testing.T) {
	register(t, fileKind, netKind)
	ctx := context.Background()
	for _, dsn := range []string{
		"mysql://user:secret@db.internal/lexsona",
		"nett://user@localhost:5432/lexsona",
		"file://lexsona.db",
		" HTTP://example.com/x.db",
	} {
		db, err := OpenWith(ctx, dsn, Options{Clock: time.Now})
		msg := engine.ErrorMessage(err)
		if db != nil || engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(msg, "give a file path, ") || !strings.Contains(msg, "a net:// URL") {
			t.Errorf("OpenWith(%q, Options{Clock: time.Now}) = %v, %v: want invalid naming a file path and a net:// URL", dsn, db, err)
		}
		if strings.Contains(msg, "secret") {
			t.Errorf("OpenWith(%q, Options{Clock: time.Now}): the message %q shows the URL's password", dsn, msg)
		}
	}
}

func TestTenantsOf(t *testing.T) {
	register(t, fileKind)
	if _, err := TenantsOf("x.db"); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("TenantsOf a kind without tenants: %v, want EINVALID", err)
	}
}

// Drivers returns the names of the registered drivers, sorted.
func Drivers() []string {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	return sortedNames(kinds)
}

// The store never reads the time of day on its own: options without a
// clock are refused before any driver opens anything.
func TestOpenNeedsAClock(t *testing.T) {
	db, err := OpenWith(context.Background(), t.TempDir()+"/x.db", Options{})
	if db != nil || engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(engine.ErrorMessage(err), "Options.Clock") {
		t.Errorf("OpenWith without a clock = %v, %v: want EINVALID naming Options.Clock", db, err)
	}
}
