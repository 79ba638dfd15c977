package postgres

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
	"github.com/lexsona/lexsona/store/storetest"
)

// TestOpenErrors: what Open says about URLs it cannot use.
func TestOpenErrors(t *testing.T) {
	base := testenv.PGURL(t)
	missing, _ := url.Parse(base)
	q := missing.Query()
	q.Set("search_path", "$user")
	missing.RawQuery = q.Encode()
	for _, tc := range []struct {
		name, dsn, code, msg string
	}{
		{"malformed", "postgres://host:notaport/db", engine.EINVALID, "PostgreSQL URL"},
		{"no server", "postgres://nobody:secret@127.0.0.1:1/db?sslmode=disable&connect_timeout=5", engine.EUNAVAILABLE, "cannot connect to PostgreSQL database postgres://nobody@127.0.0.1:1/db"},
		{"no schema named", missing.String(), engine.EUNAVAILABLE, "has no schema for LexSona's tables: create one, or name it in the URL's search_path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := store.OpenWith(context.Background(), tc.dsn, store.Options{Clock: time.Now})
			wantCode(t, err, tc.code)
			if !strings.Contains(engine.ErrorMessage(err), tc.msg) {
				t.Errorf("message %q does not say %q", engine.ErrorMessage(err), tc.msg)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
}

// TestOpenCreatesNamedSchema: a schema the URL's search_path names that
// does not exist yet is created and migrated, once, however many stores
// open it together.
func TestOpenCreatesNamedSchema(t *testing.T) {
	base := testenv.PGURL(t)
	schema := "lexsona_new_" + strings.ReplaceAll(strings.ToLower(t.Name()), "/", "_") + "_" + time.Now().Format("150405")
	u, _ := url.Parse(base)
	q := u.Query()
	// public exists, so current_schema() would fall through to it: the new
	// schema must be created all the same (a path written with a space
	// would be sent as "+public", hence none here).
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), base)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE"); err != nil {
			t.Error(err)
		}
	})
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			d, err := Open(context.Background(), u.String(), store.Options{Clock: time.Now})
			if err == nil {
				err = store.New(d, store.Options{Clock: time.Now}).Close()
			}
			errs <- err
		}()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatalf("open with a new schema: %v", err)
		}
	}
	_, d := mustOpenURL(t, u.String())
	if d.schema != schema {
		t.Errorf("tables in schema %q, want the new %q", d.schema, schema)
	}
	var where *string
	if err := d.pool.QueryRow(context.Background(), `SELECT to_regclass($1)::text`, schema+".persona_rules").Scan(&where); err != nil || where == nil {
		t.Errorf("no persona_rules table in %s: %v", schema, err)
	}
}

// TestNamedSchema: which schema a search_path lets LexSona create.
func TestNamedSchema(t *testing.T) {
	for in, want := range map[string]string{
		"lexsona":                  "lexsona",
		" Team_A , public":         "team_a",
		`"Team A", public`:         "Team A",
		`"we""ird"`:                `we"ird`,
		"":                         "",
		"$user, public":            "",
		"pg_catalog":               "",
		"information_schema, main": "",
		"Équipe":                   "Équipe", // PostgreSQL folds ASCII letters only
	} {
		if got := namedSchema(in); got != want {
			t.Errorf("namedSchema(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLocationHidesPassword: Location is the URL without its password.
func TestLocationHidesPassword(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:pw@h:5432/db?sslmode=disable":          "postgres://u@h:5432/db?sslmode=disable",
		"postgresql://u@h/db":                                "postgresql://u@h/db",
		"postgres://h/db?password=pw&search_path=s":          "postgres://h/db?search_path=s",
		"postgres://u:pw@h/db?search_path=s&sslmode=disable": "postgres://u@h/db?search_path=s&sslmode=disable",
	} {
		if got := redact(in); got != want {
			t.Errorf("redact(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestEventsAppendOnly: the database itself refuses to delete, truncate or
// rewrite an event, and to move one away from an established rule.
func TestEventsAppendOnly(t *testing.T) {
	ctx := context.Background()
	db, d, _ := mustOpen(t)
	mustCreate(t, db, "tool.x")
	mustCreate(t, db, "tool.y")
	if _, err := record(ctx, db, engine.Correction{RuleID: "tool.x", Polarity: engine.Reinforce, UserText: "x", At: t0}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"DELETE FROM persona_events",
		"TRUNCATE persona_events",
		"UPDATE persona_events SET alpha = alpha + 1",
		"UPDATE persona_events SET user_text = 'rewritten'",
		"UPDATE persona_events SET rule_id = 'tool.y' WHERE rule_id = 'tool.x'",
	} {
		_, err := d.pool.Exec(ctx, q)
		if err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v, want the append-only refusal", q, err)
		}
	}
	if s, _ := db.Stats(ctx); s.Events != 3 {
		t.Errorf("%d events, want 3", s.Events)
	}
}

// TestReadOnlyServer: on a server that only accepts reads (here a session
// default), the store opens read-only: reads work, writes and Writable
// report the read-only fault.
func TestReadOnlyServer(t *testing.T) {
	ctx := context.Background()
	db, _, dsn := mustOpen(t)
	mustCreate(t, db, "tool.x")
	u, _ := url.Parse(dsn)
	q := u.Query()
	q.Set("default_transaction_read_only", "on")
	u.RawQuery = q.Encode()
	ro, d := mustOpenURL(t, u.String())
	if !ro.ReadOnly() || !d.ReadOnly() {
		t.Fatal("not opened read-only")
	}
	if _, err := ro.GetRule(ctx, "tool.x"); err != nil {
		t.Errorf("read: %v", err)
	}
	_, err := storetest.CreateRule(ro, engine.NewRule("tool.y", "general", engine.SeverityShould, "y", engine.Scope{}, engine.DefaultConfig(), t0))
	if store.Fault(err) != store.FaultReadOnly {
		t.Errorf("write: %v, want the read-only fault", err)
	}
	if err := ro.Writable(ctx); store.Fault(err) != store.FaultReadOnly {
		t.Errorf("Writable: %v, want the read-only fault", err)
	}
	if err := db.Writable(ctx); err != nil {
		t.Errorf("Writable on the writable instance: %v", err)
	}
}

// TestPruneOnceAcrossInstances: a pass of the idempotency key pruning by
// one instance makes another's, soon after, a no-op; once the interval has
// passed, the next pass deletes again.
func TestPruneOnceAcrossInstances(t *testing.T) {
	ctx := context.Background()
	a, ad, dsn := mustOpen(t)
	b, _ := mustOpenURL(t, dsn)
	addKey := func(key string, at time.Time) {
		t.Helper()
		mustExec(t, ad, "INSERT INTO idempotency_keys (key, request_sha256, response, created_at) VALUES ($1, 'x', '{}', $2)", key, sqldriver.FormatTime(at))
	}
	now := time.Now()
	ttl := 24 * time.Hour // pruned hourly
	addKey("old-1", now.Add(-ttl-time.Minute))
	if n, err := a.PruneIdempotencyKeys(ctx, now, now.Add(-ttl)); err != nil || n != 1 {
		t.Fatalf("a's pass deleted %d (%v), want 1", n, err)
	}
	addKey("old-2", now.Add(-ttl-time.Minute))
	if n, err := b.PruneIdempotencyKeys(ctx, time.Now(), time.Now().Add(-ttl)); err != nil || n != 0 {
		t.Fatalf("b's pass right after a's deleted %d (%v), want 0: one pass serves every instance", n, err)
	}
	mustExec(t, ad, "UPDATE store_jobs SET ran_at = $1", sqldriver.FormatTime(now.Add(-time.Hour)))
	if n, err := b.PruneIdempotencyKeys(ctx, time.Now(), time.Now().Add(-ttl)); err != nil || n != 1 {
		t.Fatalf("b's pass an interval later deleted %d (%v), want 1", n, err)
	}
}

// TestDoneContext: a read with a done context fails with its error,
// without reaching the server.
func TestDoneContext(t *testing.T) {
	db, _, _ := mustOpen(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := db.Stats(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Stats: %v, want context.Canceled", err)
	}
}

// TestQuickCheck: a healthy store reads in full within the time given.
func TestQuickCheck(t *testing.T) {
	db, _, _ := mustOpen(t)
	mustCreate(t, db, "tool.x")
	finished, err := db.QuickCheck(context.Background(), 0)
	if !finished || err != nil {
		t.Fatalf("QuickCheck = %v, %v; want finished, no error", finished, err)
	}
}

// A server that accepts the connection and never answers fails the open
// within the connect timeout when the URL sets none (it does not hang).
func TestOpenSilentServerTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { // accepts, never answers; closes what it accepted once ln is closed
		defer close(done)
		var held []net.Conn
		for {
			c, err := ln.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	defer func() { ln.Close(); <-done }()
	defer func(d time.Duration) { connectTimeout = d }(connectTimeout)
	connectTimeout = 500 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = Open(ctx, "postgres://nobody@"+ln.Addr().String()+"/db?sslmode=disable", store.Options{Clock: time.Now})
	if engine.ErrorCode(err) != engine.EUNAVAILABLE || ctx.Err() != nil {
		t.Fatalf("Open on a silent server: %v (context: %v), want EUNAVAILABLE from the connect timeout", err, ctx.Err())
	}
}
