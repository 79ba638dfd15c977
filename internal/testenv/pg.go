package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PGEnv names the variable holding the URL of the PostgreSQL database the
// tests use (`bash scripts/pg.sh` starts a throwaway cluster and prints it).
const PGEnv = "LEXSONA_TEST_PG"

// RequirePGEnv names the variable that turns "no PostgreSQL" skips into
// failures: CI sets it to 1.
const RequirePGEnv = "LEXSONA_REQUIRE_PG"

// PGMissing ends the test because PostgreSQL is not available: it skips
// with the message, or fails with it when LEXSONA_REQUIRE_PG=1.
func PGMissing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	Missing(tb, RequirePGEnv, format, args...)
}

// PGURL returns $LEXSONA_TEST_PG after checking that the server answers;
// when it is unset or the server does not answer, the test is skipped (or
// failed under LEXSONA_REQUIRE_PG=1) with a message saying how to start one.
// Tests that write should use PGSchemaURL, which gives each its own schema.
func PGURL(tb testing.TB) string {
	tb.Helper()
	dsn := pgURLFromEnv()
	if dsn == "" {
		PGMissing(tb, "%s is not set: start a throwaway PostgreSQL with `export %s=$(bash scripts/pg.sh)`", PGEnv, PGEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		PGMissing(tb, "the PostgreSQL server of %s does not answer (%v): start it with `bash scripts/pg.sh`", PGEnv, err)
	}
	conn.Close(ctx)
	return dsn
}

// PGSchemaURL creates a new, empty schema in the database of PGURL and
// returns a URL whose connections work in it (search_path), so that each
// test has a store of its own; the schema is dropped when the test ends.
// It skips or fails as PGURL does.
func PGSchemaURL(tb testing.TB) string {
	tb.Helper()
	base := PGURL(tb)
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		tb.Fatal(err)
	}
	schema := "lexsona_test_" + hex.EncodeToString(b[:])
	if err := pgExec(base, "CREATE SCHEMA "+schema); err != nil {
		tb.Fatalf("create schema %s: %v", schema, err)
	}
	tb.Cleanup(func() {
		if err := pgExec(base, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("%s is not a URL: %v", PGEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// pgExec runs one statement on a connection of its own.
func pgExec(dsn, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}
