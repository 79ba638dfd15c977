package tenant

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/tenant/tenanttest"
	"github.com/lexsona/lexsona/internal/testenv"
)

// TestOpenStoreLogsANewMemory: opening a tenant whose store does not exist
// yet (a new tenant, or a misspelt name) says so once in the log, naming
// the tenant; opening it again logs nothing. On PostgreSQL the line names
// the schema and never the URL's password.
func TestOpenStoreLogsANewMemory(t *testing.T) {
	for _, tc := range []struct {
		name string
		base func(t *testing.T) string
		want string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "lexsona.db") }, filepath.Join("tenants", "carol.db")},
		{"postgres", func(t *testing.T) string {
			base := testenv.PGSchemaURL(t)
			tenanttest.DropPG(t, base, "carol")
			return base
		}, "_t_carol"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			s := NewStores(tc.base(t), slog.New(slog.NewTextHandler(&logs, nil)), time.Now)
			for range 2 {
				db, err := s.OpenStore(context.Background(), "carol")
				if err != nil {
					t.Fatal(err)
				}
				db.Close()
			}
			lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
			var created []string
			for _, l := range lines {
				if strings.Contains(l, "new tenant memory") {
					created = append(created, l)
				}
			}
			if len(created) != 1 || !strings.Contains(created[0], "tenant=carol") || !strings.Contains(created[0], tc.want) {
				t.Fatalf("log after opening carol twice:\n%s\nwant one \"new tenant memory\" line naming carol and %s", logs.String(), tc.want)
			}
			if strings.Contains(created[0], "password") || strings.Contains(created[0], "postgres://") {
				t.Errorf("the line shows a URL: %s", created[0])
			}
		})
	}
}
