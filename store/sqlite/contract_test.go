package sqlite_test

import (
	"testing"

	"github.com/lexsona/lexsona/memory/memorytest"
	_ "github.com/lexsona/lexsona/store/sqlite"
	"github.com/lexsona/lexsona/store/storetest"
)

// TestContract runs the store's row contract against SQLite files.
func TestContract(t *testing.T) { storetest.Run(t, storetest.SQLite) }

// TestDecisionContract runs memory's decisions over SQLite files.
func TestDecisionContract(t *testing.T) { memorytest.Run(t, storetest.SQLite) }
