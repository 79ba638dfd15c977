// Package tenanttest holds what tests of named tenants share: the clean-up
// of the PostgreSQL schemas and roles they create.
package tenanttest

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/store"
	_ "github.com/lexsona/lexsona/store/postgres" // DropPG asks its driver where tenants live
)

// DropPG drops, at the end of the test, the schemas and roles of the named
// tenants of the PostgreSQL store at base (the test's server,
// testenv.PGURL).
func DropPG(t *testing.T, base string, names ...string) {
	tenants, err := store.TenantsOf(base)
	if err != nil {
		t.Fatal(err)
	}
	schemas := make([]string, len(names))
	for i, n := range names {
		loc, err := tenants.Location(base, n) // the tenant's URL: its search_path is its schema (and role)
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(loc)
		if err != nil {
			t.Fatal(err)
		}
		schemas[i] = u.Query().Get("search_path")
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, testenv.PGURL(t))
		if err != nil {
			t.Errorf("dropping the tenants' schemas: %v", err)
			return
		}
		defer conn.Close(ctx)
		for _, schema := range schemas {
			id := pgx.Identifier{schema}.Sanitize()
			for _, q := range []string{"DROP SCHEMA IF EXISTS " + id + " CASCADE", "DROP ROLE IF EXISTS " + id} {
				if _, err := conn.Exec(ctx, q); err != nil {
					t.Errorf("%s: %v", q, err)
				}
			}
		}
	})
}
