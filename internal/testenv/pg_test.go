package testenv

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPGSchemaURL: the URL's connections work in a new, empty schema of
// their own, a different one for each call.
func TestPGSchemaURL(t *testing.T) {
	ctx := context.Background()
	schemas := map[string]bool{}
	for range 2 {
		conn, err := pgx.Connect(ctx, PGSchemaURL(t))
		if err != nil {
			t.Fatal(err)
		}
		var schema string
		var tables int
		err = conn.QueryRow(ctx, `SELECT current_schema(), (SELECT count(*) FROM pg_tables WHERE schemaname = current_schema())`).Scan(&schema, &tables)
		conn.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if tables != 0 || schemas[schema] {
			t.Errorf("schema %s: %d tables, seen before %v; want a new, empty one", schema, tables, schemas[schema])
		}
		schemas[schema] = true
	}
}
