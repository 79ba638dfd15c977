package tenant

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant/tenanttest"
	"github.com/lexsona/lexsona/internal/testenv"
)

// TestExists: a tenant exists once its store was opened (created), and
// asking never creates one; on SQLite and on PostgreSQL.
func TestExists(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), "lexsona.db")
			if backend == "postgres" {
				base = testenv.PGSchemaURL(t)
				tenanttest.DropPG(t, base, "alice", "bob")
			}
			s := NewStores(base, nil, time.Now)
			ctx := context.Background()
			check := func(name string, want bool) {
				t.Helper()
				if got, err := s.Exists(ctx, name); err != nil || got != want {
					t.Errorf("Exists(%s) = %v, %v; want %v", name, got, err, want)
				}
			}
			check(Default, true)
			check("alice", false)
			check("alice", false) // asking created nothing
			db, err := s.OpenStore(ctx, "alice")
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			check("alice", true)
			check("bob", false)
			if _, err := s.Exists(ctx, "Bad Name"); engine.ErrorCode(err) != engine.EINVALID {
				t.Errorf("Exists of a bad name: %v, want EINVALID", err)
			}
		})
	}
}
