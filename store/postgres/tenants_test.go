package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/store"
)

// openTenant opens tenant name's store beside base as internal/tenant
// does: Provision, then store.Open.
func openTenant(t *testing.T, base, name string) *store.DB {
	t.Helper()
	dsn, _, err := (&tenants{}).Provision(context.Background(), base, name, nil)
	if err != nil {
		t.Fatalf("Provision(%s): %v", name, err)
	}
	db, err := store.OpenWith(context.Background(), dsn, store.Options{Clock: time.Now})
	if err != nil {
		t.Fatalf("Open(%s): %v", name, err)
	}
	return db
}

// pgExec runs statements on a connection of its own as the test's superuser.
func pgExec(t *testing.T, dsn string, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// dropTenants drops the tenants' schemas and roles at the end of the test.
func dropTenants(t *testing.T, base string, names ...string) {
	u, _ := url.Parse(base)
	t.Cleanup(func() {
		var stmts []string
		for _, n := range names {
			id := pgx.Identifier{SchemaPrefix(u) + n}.Sanitize()
			stmts = append(stmts, "DROP SCHEMA IF EXISTS "+id+" CASCADE", "DROP ROLE IF EXISTS "+id)
		}
		pgExec(t, testenv.PGURL(t), stmts...)
	})
}

// denied reports whether err is PostgreSQL's insufficient_privilege.
func denied(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42501"
}

// checkRoleIsolation opens alice's and bob's stores under base and checks
// that a session of alice's (its URL with the role) reads its own tables
// unqualified and is refused bob's and the default tenant's, even named by
// schema or through search_path.
func checkRoleIsolation(t *testing.T, base, defaultSchema string) {
	ctx := context.Background()
	for _, n := range []string{"alice", "bob"} {
		openTenant(t, base, n).Close()
	}
	// Opening again (a restart, another instance) finds both ready.
	openTenant(t, base, "alice").Close()
	alice, err := newPlace(base, "alice")
	if err != nil {
		t.Fatal(err)
	}
	bob, _ := newPlace(base, "bob")
	conn, err := pgx.Connect(ctx, alice.url(true))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var user string
	var n int
	if err := conn.QueryRow(ctx, `SELECT current_user::text, (SELECT count(*) FROM persona_rules)`).Scan(&user, &n); err != nil || user != alice.schema {
		t.Fatalf("alice's session: user %q, %d rules, %v; want user %s", user, n, err, alice.schema)
	}
	for _, q := range []string{
		"SELECT count(*) FROM " + pgx.Identifier{bob.schema, "persona_rules"}.Sanitize(),
		"SELECT count(*) FROM " + pgx.Identifier{defaultSchema, "persona_rules"}.Sanitize(),
	} {
		if _, err := conn.Exec(ctx, q); !denied(err) {
			t.Errorf("alice's session: %s: %v, want permission denied", q, err)
		}
	}
	if _, err := conn.Exec(ctx, "SET search_path = "+pgx.Identifier{bob.schema}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SELECT count(*) FROM persona_rules"); err == nil {
		t.Errorf("alice's session read bob's rules through search_path")
	}
}

// TestPGTenantRoles: as a superuser, every tenant gets a schema and a role
// owning it, and a session of one tenant cannot read another's tables.
func TestPGTenantRoles(t *testing.T) {
	base := testenv.PGSchemaURL(t)
	dropTenants(t, base, "alice", "bob")
	u, _ := url.Parse(base)
	checkRoleIsolation(t, base, u.Query().Get("search_path"))
	if loc, _ := (&tenants{}).Location(base, "alice"); !strings.Contains(loc, "search_path="+SchemaPrefix(u)+"alice") || store.DriverName(loc) != "postgres" {
		t.Errorf("Location(alice) = %s", loc)
	}
}

// testRole creates a login role of the test's server named prefix plus
// random digits, with attrs, that may create schemas in the database and
// owns a schema of its name, dropped at the end of the test; it returns
// the role and the URL of a connection as it, working in that schema.
func testRole(t *testing.T, prefix, attrs string) (role, base string) {
	super := testenv.PGURL(t)
	var b [6]byte
	rand.Read(b[:])
	role = prefix + hex.EncodeToString(b[:])
	u, _ := url.Parse(super)
	db := pgx.Identifier{strings.TrimPrefix(u.Path, "/")}.Sanitize()
	pgExec(t, super, "CREATE ROLE "+role+" LOGIN"+attrs, "GRANT CREATE ON DATABASE "+db+" TO "+role,
		"CREATE SCHEMA "+role+" AUTHORIZATION "+role)
	t.Cleanup(func() {
		pgExec(t, super, "DROP SCHEMA IF EXISTS "+role+" CASCADE", "REVOKE CREATE ON DATABASE "+db+" FROM "+role, "DROP ROLE IF EXISTS "+role)
	})
	u.User = url.User(role)
	q := u.Query()
	q.Set("search_path", role)
	u.RawQuery = q.Encode()
	return role, u.String()
}

// TestPGTenantRolesCreateRole: a connecting role that is no superuser but
// may create roles (CREATEROLE) gets the same isolation.
func TestPGTenantRolesCreateRole(t *testing.T) {
	admin, base := testRole(t, "lexsona_test_admin_", " CREATEROLE")
	dropTenants(t, base, "alice", "bob") // runs before the admin role is dropped
	checkRoleIsolation(t, base, admin)
}

// TestPGTenantNoCreateRole: a role that may not create roles still gets a
// schema per tenant (isolation by search_path only), and is told so.
func TestPGTenantNoCreateRole(t *testing.T) {
	_, base := testRole(t, "lexsona_test_plain_", "")
	dropTenants(t, base, "alice")
	p, _ := newPlace(base, "alice")
	withRole, _, err := p.provision(context.Background())
	if err != nil || withRole {
		t.Fatalf("provision without CREATEROLE: role %v, %v", withRole, err)
	}
	var logs strings.Builder
	tn := &tenants{}
	for range 2 {
		dsn, _, err := tn.Provision(context.Background(), base, "alice", slog.New(slog.NewTextHandler(&logs, nil)))
		if err != nil {
			t.Fatal(err)
		}
		st, err := store.OpenWith(context.Background(), dsn, store.Options{Clock: time.Now})
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	if n := strings.Count(logs.String(), "may not create roles"); n != 1 {
		t.Errorf("%d warnings that tenants share a role, want 1:\n%s", n, logs.String())
	}
}
