package store

import (
	"context"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

func TestDriverName(t *testing.T) {
	for dsn, want := range map[string]string{
		"/var/lib/lexsona/lexsona.db":               "sqlite",
		"lexsona.db":                                "sqlite",
		"postgres://user@host:5432/db":              "postgres",
		"PostgreSQL://user@host/db?sslmode=disable": "postgres",
		" postgresql://h/db":                        "postgres",
		"./postgres/lexsona.db":                     "sqlite",
	} {
		if got := DriverName(dsn); got != want {
			t.Errorf("DriverName(%q) = %q, want %q", dsn, got, want)
		}
	}
}

// TestOpenNeedsARegisteredDriver: package store alone has no driver (this
// test binary imports none): Open says which one is missing.
func TestOpenNeedsARegisteredDriver(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ dsn, code, msg string }{
		{" ", engine.EINVALID, "database path is empty"},
		{"postgres://user@localhost:5432/lexsona", engine.EUNAVAILABLE, "the postgres store driver is not built into this program"},
		{t.TempDir() + "/x.db", engine.EUNAVAILABLE, "the sqlite store driver is not built into this program"},
	} {
		db, err := Open(ctx, tc.dsn)
		if db != nil || engine.ErrorCode(err) != tc.code || !strings.Contains(engine.ErrorMessage(err), tc.msg) {
			t.Errorf("Open(%q) = %v, %v: want %s saying %q", tc.dsn, db, err, tc.code, tc.msg)
		}
	}
}

func TestRegister(t *testing.T) {
	open := func(context.Context, string, Options) (Driver, error) { return nil, nil }
	Register("test-only", open)
	defer func() {
		driversMu.Lock()
		delete(drivers, "test-only")
		driversMu.Unlock()
	}()
	if got := Drivers(); len(got) != 1 || got[0] != "test-only" {
		t.Errorf("Drivers() = %v", got)
	}
	for name, fn := range map[string]Opener{"test-only": open, "nil": nil} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			Register(name, fn)
		}()
	}
}

// TestOpenRefusesUnknownURLScheme: a URL whose scheme no driver takes (a
// typo, another database) is refused before any driver runs, instead of
// becoming a SQLite file under a folder named after the scheme.
func TestOpenRefusesUnknownURLScheme(t *testing.T) {
	ctx := context.Background()
	for _, dsn := range []string{
		"mysql://user:secret@db.internal/lexsona",
		"postgress://user@localhost:5432/lexsona",
		"sqlite://lexsona.db",
		" HTTP://example.com/x.db",
	} {
		db, err := Open(ctx, dsn)
		msg := engine.ErrorMessage(err)
		if db != nil || engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(msg, "postgres://") {
			t.Errorf("Open(%q) = %v, %v: want invalid naming postgres:// and file paths", dsn, db, err)
		}
		if strings.Contains(msg, "secret") {
			t.Errorf("Open(%q): the message %q shows the URL's password", dsn, msg)
		}
	}
}
