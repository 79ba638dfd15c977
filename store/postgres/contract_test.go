package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/memory/memorytest"
	"github.com/lexsona/lexsona/store"
	_ "github.com/lexsona/lexsona/store/postgres"
	"github.com/lexsona/lexsona/store/storetest"
)

// TestContract runs the store's row contract against PostgreSQL, each test
// in a schema of its own.
func TestContract(t *testing.T) { storetest.Run(t, openPG) }

// TestDecisionContract runs memory's decisions over PostgreSQL, each test
// in a schema of its own.
func TestDecisionContract(t *testing.T) { memorytest.Run(t, openPG) }

// openPG opens a store in a new schema, closed at the end of the test.
func openPG(t *testing.T) *store.DB {
	t.Helper()
	dsn := testenv.PGSchemaURL(t)
	db, err := store.OpenWith(context.Background(), dsn, store.Options{Clock: time.Now})
	if err != nil {
		t.Fatalf("store.OpenWith(%s, store.Options{Clock: time.Now}): %v", dsn, err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}
